import Foundation

/// How a stress outcome is judged.
public enum OutcomeExpectation: String, Codable, Sendable {
    /// Correct behaviour.
    case acceptable
    /// Allowed, but worth a look (a race won by a hair, say).
    case interesting
    /// A bug: one occurrence fails the run.
    case forbidden
}

/// One scenario × subject run, as the report holds it.
public struct StressRun: Codable, Sendable {
    /// How a run ended (the statuses of rule results): `failed` means a forbidden outcome
    /// was observed.
    public typealias Status = ResultStatus

    /// An outcome's count and how it is judged.
    public struct OutcomeCount: Codable, Sendable, Equatable {
        public var count: Int
        public var expect: OutcomeExpectation

        /// `count` occurrences of an outcome judged `expect`.
        public init(count: Int, expect: OutcomeExpectation) {
            self.count = count
            self.expect = expect
        }
    }

    public var scenario: ScenarioID
    public var subject: String
    public var origin: SubjectOrigin
    public var threads: Int
    public var seed: UInt64
    public var operations: Int
    public var durationSeconds: Double
    public var throughputPerSecond: Double
    public var latencyNanoseconds: LatencySummary?
    public var outcomes: [String: OutcomeCount]
    public var status: Status
    public var allocations: AllocationStats?
    /// Benchmarks only: the cost per unit divided by the ``baseline``'s.
    public var ratioToBaseline: Double?
    /// What a benchmark compared the subject with; nil for other scenarios.
    public var baseline: BareBaseline?
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
        case latencyNanoseconds, outcomes, status, allocations, ratioToBaseline, baseline, metrics, samples, growth,
            memory,
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
        try container.encodeIfPresent(baseline, forKey: .baseline)
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

    /// A run with its identity and counts; the measurements a scenario adds are set after.
    public init(
        scenario: ScenarioID, subject: String, origin: SubjectOrigin, threads: Int, seed: UInt64, operations: Int,
        durationSeconds: Double, outcomes: [String: OutcomeCount], status: Status, message: String? = nil
    ) {
        self.scenario = scenario
        self.subject = subject
        self.origin = origin
        self.threads = threads
        self.seed = seed
        self.operations = operations
        self.durationSeconds = durationSeconds
        self.throughputPerSecond = Double(operations) / max(durationSeconds, 1e-9)
        self.outcomes = outcomes
        self.status = status
        self.metrics = [:]
        self.message = message
    }
}
