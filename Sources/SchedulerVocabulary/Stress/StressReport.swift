import Foundation

/// A stress report: what `Reports/stress/<timestamp>.json` holds (see
/// `Reports/schema/stress.schema.json`).
public struct StressReport: Codable, Sendable {
    public static let currentSchemaVersion = 1

    /// The machine, toolchain, code and allocator the report was made with.
    public typealias Environment = ReportEnvironment

    public typealias Summary = StatusSummary

    public var schemaVersion = currentSchemaVersion
    public var generatedAt: String
    public var environment: Environment
    public var seed: UInt64
    public var budgetSeconds: Double
    /// The scenarios and subjects the run was asked for, in order: runs go scenario by
    /// scenario, subject by subject. Absent from older reports.
    public var scenarios: [ScenarioID]?
    public var subjects: [String]?
    /// The part of a sharded run this report holds; absent for a whole run (merged ones too).
    public var shard: Shard?
    public var runs: [StressRun]
    public var summary: Summary

    /// A report of `runs`; the environment is this machine's and the summary is derived,
    /// with `gate` deciding which failures fail the run.
    public init(
        runs: [StressRun], seed: UInt64, budgetSeconds: Double, allocator: String, scenarios: [ScenarioID]? = nil,
        subjects: [String]? = nil,
        shard: Shard? = nil, gate: Gate = Gate()
    ) {
        self.init(
            runs: runs, seed: seed, budgetSeconds: budgetSeconds, environment: .current(allocator: allocator),
            scenarios: scenarios, subjects: subjects, shard: shard, gate: gate)
    }

    /// A report of `runs` made on `environment` (as a merge has them); the summary is derived.
    public init(
        runs: [StressRun], seed: UInt64, budgetSeconds: Double, environment: Environment, scenarios: [ScenarioID]?,
        subjects: [String]?, shard: Shard?, gate: Gate
    ) {
        generatedAt = ReportTime.now()
        self.environment = environment
        self.seed = seed
        self.budgetSeconds = budgetSeconds
        self.scenarios = scenarios
        self.subjects = subjects
        self.shard = shard
        self.runs = runs
        var summary = Summary()
        for run in runs {
            summary.count(
                run.status,
                gates: gate.gates(
                    run.status, subject: run.subject, origin: run.origin, check: .scenario(run.scenario), level: nil))
        }
        self.summary = summary
    }

    /// The shards of one run as the report of the whole run: every run in the order the
    /// whole run makes them, the budget summed, the summary counted again under `gate`.
    /// - Throws: ``MergeError`` unless `reports` are every shard of one run exactly once,
    ///   with one selection, one allocator, and no scenario × subject twice.
    public static func merged(_ reports: [StressReport], gate: Gate = Gate()) throws(MergeError) -> StressReport {
        try checkOneRun(
            schemaVersions: reports.map(\.schemaVersion), commits: reports.map(\.environment.commit),
            sanitizers: reports.map(\.environment.sanitizer), shards: reports.map(\.shard)
        )
        let first = reports[0]
        guard reports.allSatisfy({ $0.scenarios == first.scenarios && $0.subjects == first.subjects }) else {
            throw .notOneRun("the reports ran different selections of scenarios and subjects")
        }
        // Each run's seed and length come from the whole run's seed and plan: shards run with
        // other seeds or thread counts are not parts of one run.
        guard Set(reports.map(\.seed)).count == 1 else {
            throw .notOneRun(
                """
                the shards ran with different seeds (\(reports.map { String($0.seed) }.joined(separator: ", "))): \
                give every shard the same --seed
                """
            )
        }
        guard Set(reports.flatMap { $0.runs.map(\.threads) }).count <= 1 else {
            throw .notOneRun("the shards ran with different thread counts")
        }
        guard Set(reports.map(\.environment.allocator)).count == 1 else {
            throw .notOneRun("the reports were made with different allocators, whose numbers are not comparable")
        }
        var runs = reports.flatMap(\.runs)
        var seen = Set<String>()
        for run in runs where !seen.insert(Shard.pairID(run.scenario.rawValue, run.subject)).inserted {
            throw .notOneRun("\(run.scenario) × \(run.subject) appears in two reports")
        }
        if let scenarios = first.scenarios, let subjects = first.subjects {
            let scenarioOrder = positions(scenarios)
            let subjectOrder = positions(subjects)
            runs.sort {
                (scenarioOrder[$0.scenario, default: .max], subjectOrder[$0.subject, default: .max])
                    < (scenarioOrder[$1.scenario, default: .max], subjectOrder[$1.subject, default: .max])
            }
        }
        return StressReport(
            runs: runs, seed: first.seed, budgetSeconds: reports.map(\.budgetSeconds).reduce(0, +),
            environment: first.environment,
            scenarios: first.scenarios, subjects: first.subjects, shard: nil, gate: gate
        )
    }

    /// Pretty, key-sorted JSON, for the report and its exports alike.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    /// Pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        try Self.encoder.encode(self)
    }
}
