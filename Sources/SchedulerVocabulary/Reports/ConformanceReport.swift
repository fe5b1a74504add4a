import Foundation
import Schedulers

/// The conformance report: what `Reports/conformance.json` holds (see
/// `Reports/schema/conformance.schema.json`).
public struct ConformanceReport: Codable, Sendable {
    /// Bumped on every incompatible change of this format.
    public static let currentSchemaVersion = 1

    /// The machine, toolchain and code the report was made with.
    public typealias Environment = ReportEnvironment

    /// A rule as data.
    public struct RuleInfo: Codable, Sendable {
        public var id: RuleID
        public var category: RuleCategory
        public var title: String
        public var level: RuleLevel
        public var capabilities: [String]
        public var anyOf: [String]
        public var excludes: [String]
        public var rationale: String
        public var hint: String
        /// Why no scheduler on this package's API can fail it, for `guaranteed` rules.
        public var guarantee: String?
        /// Whether it needs the subject's wall-clock step hook.
        public var needsWallClockStep: Bool

        /// A rule as data, as the suite's catalogue describes it.
        public init(
            id: RuleID, category: RuleCategory, title: String, level: RuleLevel, capabilities: [String],
            anyOf: [String], excludes: [String], rationale: String, hint: String, guarantee: String?,
            needsWallClockStep: Bool
        ) {
            self.id = id
            self.category = category
            self.title = title
            self.level = level
            self.capabilities = capabilities
            self.anyOf = anyOf
            self.excludes = excludes
            self.rationale = rationale
            self.hint = hint
            self.guarantee = guarantee
            self.needsWallClockStep = needsWallClockStep
        }
    }

    /// One subject and its result for every rule.
    public struct SubjectReport: Codable, Sendable {
        public var name: String
        public var origin: ConformanceSubject.Origin
        /// What the subject is; absent from reports written before clocks and executors
        /// were subjects, which held schedulers only.
        public var kind: ConformanceSubject.Kind?
        public var capabilities: [String]
        /// The choices of SEMANTICS.md §8 it declared differently from the suite, which its
        /// results were judged by (`.dueSleep(.parksUntilNextAdvance)`); absent when none.
        public var declarations: [String]?
        public var results: [RuleResult]

        /// The subject's claims and declarations, and `results`.
        public init(_ subject: ConformanceSubject, results: [RuleResult]) {
            name = subject.name
            origin = subject.origin
            kind = subject.kind
            capabilities = subject.capabilities.names
            let declared = subject.declared.differences.map(\.code)
            declarations = declared.isEmpty ? nil : declared
            self.results = results
        }
    }

    public typealias Summary = StatusSummary

    public var schemaVersion = currentSchemaVersion
    public var generatedAt: String
    public var environment: Environment
    public var timing: Timing
    /// The `--timing-scale` the bounds were calibrated with; absent from older reports.
    public var timingScale: Double?
    /// The part of a sharded run this report holds; absent for a whole run (merged ones too).
    public var shard: Shard?
    public var rules: [RuleInfo]
    public var subjects: [SubjectReport]
    public var summary: Summary

    /// A report from rules as data (as the catalogue or a merge has them); the summary is
    /// derived, with `gate` deciding which failures fail the run.
    public init(
        rules: [RuleInfo], subjects: [SubjectReport], timing: Timing, timingScale: Double?, shard: Shard?, gate: Gate,
        environment: Environment
    ) {
        self.generatedAt = ReportTime.now()
        self.environment = environment
        self.timing = timing
        self.timingScale = timingScale
        self.shard = shard
        self.rules = rules
        self.subjects = subjects
        let levels = Dictionary(rules.map { ($0.id, $0.level) }, uniquingKeysWith: { first, _ in first })
        var summary = Summary()
        for subject in subjects {
            for result in subject.results {
                summary.count(
                    result.status,
                    gates: gate.gates(
                        result.status, subject: subject.name, origin: subject.origin, check: .rule(result.rule),
                        level: levels[result.rule]))
            }
        }
        self.summary = summary
    }

    /// The report as pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
