import Foundation
import Schedulers

/// The conformance report: what `Reports/conformance.json` holds (see
/// `Reports/schema/conformance.schema.json`).
public struct ConformanceReport: Codable, Sendable {
    /// Bumped on every incompatible change of this format.
    public static let currentSchemaVersion = 1

    /// The machine, toolchain and code a report was made with: what a reader needs to trust
    /// it, or to know two reports are not comparable.
    public struct Environment: Codable, Sendable, Equatable {
        public var os: String
        public var cpuCount: Int
        public var swiftVersion: String
        /// The CPU architecture (`x86_64`, `arm64`); absent from older reports.
        public var architecture: String?
        /// The git commit of the code that was checked (see ``Provenance/commit``); absent
        /// outside a git checkout and from older reports.
        public var commit: String?
        /// `thread` in `make tsan`'s build, whose timings are not comparable with others.
        public var sanitizer: String?

        /// This machine, toolchain and checkout.
        public static var current: Environment {
            Environment(
                os: ProcessInfo.processInfo.operatingSystemVersionString,
                cpuCount: ProcessInfo.processInfo.activeProcessorCount,
                swiftVersion: compilerVersion,
                architecture: Provenance.architecture,
                commit: Provenance.commit,
                sanitizer: ThreadSanitizerBuild.isEnabled ? "thread" : nil
            )
        }
    }

    /// A rule as data.
    public struct RuleInfo: Codable, Sendable {
        public var id: String
        public var category: String
        public var title: String
        public var level: Rule.Level
        public var capabilities: [String]
        public var anyOf: [String]
        public var excludes: [String]
        public var rationale: String
        public var hint: String
        /// Why no scheduler on this package's API can fail it, for `guaranteed` rules.
        public var guarantee: String?
        /// Whether it needs the subject's wall-clock step hook.
        public var needsWallClockStep: Bool

        /// The rule's data, without its check.
        public init(_ rule: Rule) {
            id = rule.id
            category = rule.category.rawValue
            title = rule.title
            level = rule.level
            capabilities = rule.requires.names
            anyOf = rule.requiresAnyOf.names
            excludes = rule.excludes.names
            rationale = rule.rationale
            hint = rule.hint
            guarantee = rule.guarantee
            needsWallClockStep = rule.needsWallClockStep
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
        public var results: [RuleResult]

        /// The subject's claims and `results`.
        public init(_ subject: ConformanceSubject, results: [RuleResult]) {
            name = subject.name
            origin = subject.origin
            kind = subject.kind
            capabilities = subject.capabilities.names
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

    /// A report of `subjects` checked against `rules`; the summary is derived from them,
    /// with `gate` deciding which failures fail the run.
    public init(
        rules: [Rule], subjects: [SubjectReport], timing: Timing, timingScale: Double = 1, shard: Shard? = nil,
        gate: Gate = Gate(), environment: Environment = .current
    ) {
        self.init(rules: rules.map(RuleInfo.init), subjects: subjects, timing: timing, timingScale: timingScale, shard: shard, gate: gate, environment: environment)
    }

    /// A report from rules as data (as a merge has them); the summary is derived.
    init(rules: [RuleInfo], subjects: [SubjectReport], timing: Timing, timingScale: Double?, shard: Shard?, gate: Gate, environment: Environment) {
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
                summary.count(result.status, gates: gate.gates(result.status, subject: subject.name, origin: subject.origin, rule: result.rule, level: levels[result.rule]))
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

extension Timing {
    enum CodingKeys: String, CodingKey {
        case mustHappen = "mustHappenSeconds", quietWindow = "quietWindowSeconds"
        case lateness = "latenessSeconds", ruleTimeout = "ruleTimeoutSeconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mustHappen.timeInterval, forKey: .mustHappen)
        try container.encode(quietWindow.timeInterval, forKey: .quietWindow)
        try container.encode(lateness.timeInterval, forKey: .lateness)
        try container.encode(ruleTimeout.timeInterval, forKey: .ruleTimeout)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func duration(_ key: CodingKeys) throws -> Duration {
            .nanoseconds(Int64(try container.decode(Double.self, forKey: key) * 1e9))
        }
        self.init(
            mustHappen: try duration(.mustHappen), quietWindow: try duration(.quietWindow),
            lateness: try duration(.lateness), ruleTimeout: try duration(.ruleTimeout)
        )
    }
}

/// The compiler this suite was built with.
let compilerVersion: String = {
    #if compiler(>=6.4)
    "6.4 or later"
    #elseif compiler(>=6.3)
    "6.3"
    #elseif compiler(>=6.2)
    "6.2"
    #else
    "6.1 or earlier"
    #endif
}()

/// Counts of results by status, shared by the conformance and stress reports.
public struct StatusSummary: Codable, Sendable, Equatable {
    public var passed = 0, failed = 0, skipped = 0, timeout = 0, error = 0, inconclusive = 0, guaranteed = 0
    /// Failures, timeouts and errors of results that gate the run (see ``Gate``); the run
    /// fails when this is not zero.
    public var gatingFailures = 0

    /// An empty summary.
    public init() {}

    /// Reads a summary; the `inconclusive` and `guaranteed` counts are absent from reports
    /// written before they existed (a nightly baseline, say) and read as zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        passed = try count(.passed)
        failed = try count(.failed)
        skipped = try count(.skipped)
        timeout = try count(.timeout)
        error = try count(.error)
        inconclusive = try count(.inconclusive)
        guaranteed = try count(.guaranteed)
        gatingFailures = try count(.gatingFailures)
    }

    /// Counts one result; `gates` says whether a failure of it fails the run.
    public mutating func count(_ status: RuleResult.Status, gates: Bool) {
        switch status {
        case .passed: passed += 1
        case .failed: failed += 1
        case .skipped: skipped += 1
        case .timeout: timeout += 1
        case .error: error += 1
        case .inconclusive: inconclusive += 1
        case .guaranteed: guaranteed += 1
        }
        if gates, status.isFailure { gatingFailures += 1 }
    }
}

/// When reports were made: ISO 8601 in UTC with milliseconds, so that runs made within one
/// second (shards, a test's back-to-back runs) still sort in the order they were made.
public enum ReportTime {
    /// The current time as a report's `generatedAt`.
    public static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// The time in a report's `generatedAt`, with or without fractional seconds (older
    /// reports have none); nil when it is not such a time.
    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
