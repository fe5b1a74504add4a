import Foundation
import SchedulerConformance
import SchedulerReporting

/// One scenario × subject run, as the report holds it.
public struct StressRun: Codable, Sendable {
    /// How a run ended (the statuses of rule results): `failed` means a forbidden outcome
    /// was observed.
    public typealias Status = ResultStatus

    /// An outcome's count and how it is judged.
    public struct OutcomeCount: Codable, Sendable, Equatable {
        public var count: Int
        public var expect: StressScenario.Expectation
    }

    public var scenario: String
    public var subject: String
    public var origin: ConformanceSubject.Origin
    public var threads: Int
    public var seed: UInt64
    public var operations: Int
    public var durationSeconds: Double
    public var throughputPerSecond: Double
    public var latencyNanoseconds: LatencySummary?
    public var outcomes: [String: OutcomeCount]
    public var status: Status
    public var allocations: AllocationStats?
    /// Throughput benchmark only: cost per action divided by the bare `DispatchQueue.async`'s.
    public var ratioToBaseline: Double?
    /// Further measurements by name (nanoseconds per action, per recursion step, …).
    public var metrics: [StressMetric: Double]
    /// The per-round values of the metrics a benchmark measures in rounds (its medians are
    /// in ``metrics``), for rank tests against earlier runs; absent elsewhere.
    public var samples: [StressMetric: [Double]]?
    /// The `growth` scenario's cost per action at each size and the fitted exponent; absent
    /// elsewhere.
    public var growth: GrowthCurve?
    /// The `soak` scenario's memory after each quiet round and its fitted growth; absent
    /// elsewhere.
    public var memory: MemoryCurve?
    /// Why it did not pass, or why it was skipped.
    public var message: String?
    /// A command that repeats this run with its seed.
    public var reproduce: String?
    /// Every thread's stack for a timeout; stderr for an error.
    public var diagnostics: String?

    private enum CodingKeys: String, CodingKey {
        case scenario, subject, origin, threads, seed, operations, durationSeconds, throughputPerSecond
        case latencyNanoseconds, outcomes, status, allocations, ratioToBaseline, metrics, samples, growth, memory,
            message, reproduce,
            diagnostics
    }

    /// Absent measurements are written as `null` (not left out), so a nightly job can tell
    /// "not measured" (no jemalloc, say) from a report of another format.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(subject, forKey: .subject)
        try container.encode(origin, forKey: .origin)
        try container.encode(threads, forKey: .threads)
        try container.encode(seed, forKey: .seed)
        try container.encode(operations, forKey: .operations)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(throughputPerSecond, forKey: .throughputPerSecond)
        try container.encode(latencyNanoseconds, forKey: .latencyNanoseconds)
        try container.encode(outcomes, forKey: .outcomes)
        try container.encode(status, forKey: .status)
        try container.encode(allocations, forKey: .allocations)
        try container.encode(ratioToBaseline, forKey: .ratioToBaseline)
        try container.encode(metrics, forKey: .metrics)
        try container.encodeIfPresent(samples, forKey: .samples)
        try container.encodeIfPresent(growth, forKey: .growth)
        try container.encodeIfPresent(memory, forKey: .memory)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(reproduce, forKey: .reproduce)
        try container.encodeIfPresent(diagnostics, forKey: .diagnostics)
    }

    /// The run's status from its outcomes: failed when any forbidden outcome occurred.
    public static func judge(_ outcomes: [String: OutcomeCount]) -> Status {
        outcomes.values.contains { $0.expect == .forbidden && $0.count > 0 } ? .failed : .passed
    }

    /// Builds the run from what `context` collected while `scenario` ran.
    public init(scenario: StressScenario, context: StressContext, duration: Duration, failure: StressFailure?) {
        var outcomes: [String: OutcomeCount] = [:]
        let counts = context.outcomeCounts
        for outcome in scenario.outcomes {
            outcomes[outcome.name] = OutcomeCount(count: counts[outcome.name] ?? 0, expect: outcome.expect)
        }
        let seconds = max(duration.timeInterval, 1e-9)
        let metrics = context.metrics
        self.scenario = scenario.id
        self.subject = context.subject.name
        self.origin = context.subject.origin
        self.threads = context.threads
        self.seed = context.seed
        self.operations = context.operations
        self.durationSeconds = duration.timeInterval
        self.throughputPerSecond = Double(context.operations) / seconds
        self.latencyNanoseconds = context.latency.summary
        self.outcomes = outcomes
        self.allocations = context.allocations.perOperation(context.operations)
        // The benchmarks count their subject's allocations themselves, apart from the baseline's.
        if let perOperation = BenchmarkUnit.allCases.lazy.compactMap({ metrics[$0.allocations] }).first {
            self.allocations?.perOperation = perOperation
        }
        if let bytes = metrics[BenchmarkUnit.action.bytes] { self.allocations?.bytesPerOperation = bytes }
        self.ratioToBaseline = metrics[.ratioToBaseline]
        self.metrics = metrics
        let samples = context.samples
        self.samples = samples.isEmpty ? nil : samples
        self.growth = context.growth
        self.memory = context.memory
        let undeclared = Set(counts.keys).subtracting(scenario.outcomes.map(\.name))
        if !undeclared.isEmpty {
            // Counts the report has no place for must not vanish: the run is not judged.
            self.status = .error
            self.message =
                "the scenario recorded outcomes it does not declare: \(undeclared.sorted().joined(separator: ", "))"
        } else if let failure {
            // A run cut short after a forbidden outcome (work lost, so nothing left to wait
            // for) is the subject's failure; otherwise the run could not be judged.
            self.status = Self.judge(outcomes) == .failed ? .failed : failure.inconclusive ? .inconclusive : .error
            self.message = failure.description
        } else {
            self.status = Self.judge(outcomes)
            self.message =
                self.status == .failed
                ? "forbidden: "
                    + outcomes.filter { $0.value.expect == .forbidden && $0.value.count > 0 }.map {
                        "\($0.key) ×\($0.value.count)"
                    }.sorted().joined(separator: ", ") : nil
        }
    }

    /// A run that did not produce observations (skipped, timed out, crashed).
    public init(
        scenario: StressScenario, subject: ConformanceSubject, threads: Int, seed: UInt64, status: Status,
        message: String, durationSeconds: Double = 0, diagnostics: String? = nil
    ) {
        self.scenario = scenario.id
        self.subject = subject.name
        self.origin = subject.origin
        self.threads = threads
        self.seed = seed
        self.operations = 0
        self.durationSeconds = durationSeconds
        self.throughputPerSecond = 0
        self.outcomes = Dictionary(
            uniqueKeysWithValues: scenario.outcomes.map { ($0.name, OutcomeCount(count: 0, expect: $0.expect)) })
        self.status = status
        self.metrics = [:]
        self.message = message
        self.diagnostics = diagnostics
    }
}

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
    public var scenarios: [String]?
    public var subjects: [String]?
    /// The part of a sharded run this report holds; absent for a whole run (merged ones too).
    public var shard: Shard?
    public var runs: [StressRun]
    public var summary: Summary

    /// A report of `runs`; the environment is this machine's and the summary is derived,
    /// with `gate` deciding which failures fail the run.
    public init(
        runs: [StressRun], seed: UInt64, budgetSeconds: Double, allocator: String, scenarios: [String]? = nil,
        subjects: [String]? = nil,
        shard: Shard? = nil, gate: Gate = Gate()
    ) {
        self.init(
            runs: runs, seed: seed, budgetSeconds: budgetSeconds, environment: .current(allocator: allocator),
            scenarios: scenarios, subjects: subjects, shard: shard, gate: gate)
    }

    init(
        runs: [StressRun], seed: UInt64, budgetSeconds: Double, environment: Environment, scenarios: [String]?,
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
                gates: gate.gates(run.status, subject: run.subject, origin: run.origin, rule: run.scenario, level: nil))
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
                "the shards ran with different seeds (\(reports.map { String($0.seed) }.joined(separator: ", "))): give every shard the same --seed"
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
        for run in runs where !seen.insert(Shard.pairID(run.scenario, run.subject)).inserted {
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
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    /// Pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        try Self.encoder.encode(self)
    }
}
