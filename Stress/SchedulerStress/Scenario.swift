import SchedulerVocabulary
import Schedulers

/// One stress scenario: a multithreaded workload run against a subject for a wall-clock
/// budget, whose observations are classified as outcomes (as jcstress does).
public struct StressScenario: Sendable, Identifiable {
    /// How an outcome is judged.
    public typealias Expectation = OutcomeExpectation

    /// An outcome the scenario may report, declared up front so reports list all of them.
    public struct Outcome: Sendable {
        public let name: String
        public let expect: Expectation
        public let meaning: String
    }

    /// How one outcome is judged, and what it means to a reader of the report.
    public struct Judgement: Sendable {
        public let expect: Expectation
        public let meaning: String

        /// Correct behaviour.
        public static func acceptable(_ meaning: String) -> Self { Self(expect: .acceptable, meaning: meaning) }
        /// Allowed, but worth a look.
        public static func interesting(_ meaning: String) -> Self { Self(expect: .interesting, meaning: meaning) }
        /// A bug: one occurrence fails the run.
        public static func forbidden(_ meaning: String) -> Self { Self(expect: .forbidden, meaning: meaning) }
    }

    /// Stable name, used on the command line and in reports.
    public let id: ScenarioID
    /// What the scenario does and which invariant it checks.
    public let summary: String
    /// The kind of subject it stresses.
    public let kind: ConformanceSubject.Kind
    public let requires: SchedulerCapabilities
    public let anyOf: SchedulerCapabilities
    public let excludes: SchedulerCapabilities
    public let outcomes: [Outcome]
    /// Whether it times the subject against a baseline: its worker runs with jemalloc's thread
    /// caches on, as applications do (its allocation counts, over 10⁴ operations a round,
    /// match a run with the caches off to four digits).
    public let isBenchmark: Bool
    let body: @Sendable (StressContext) throws(StressFailure) -> Void

    init<Outcomes: StressOutcome>(
        _ id: ScenarioID, _ summary: String,
        kind: ConformanceSubject.Kind = .scheduler,
        requires: SchedulerCapabilities = [], anyOf: SchedulerCapabilities = [], excludes: SchedulerCapabilities = [],
        outcomes: Outcomes.Type,
        isBenchmark: Bool = false,
        body: @escaping @Sendable (StressContext) throws(StressFailure) -> Void
    ) {
        self.id = id
        self.summary = summary
        self.kind = kind
        self.requires = requires
        self.anyOf = anyOf
        self.excludes = excludes
        self.outcomes = Outcomes.allCases.map {
            Outcome(name: $0.rawValue, expect: $0.judgement.expect, meaning: $0.judgement.meaning)
        }
        self.isBenchmark = isBenchmark
        self.body = body
    }

    /// Why the scenario does not apply to `capabilities`, or nil when it does.
    public func skipReason(for capabilities: SchedulerCapabilities) -> String? {
        capabilities.mismatch(requires: requires, anyOf: anyOf, excludes: excludes)
    }

    /// Why the scenario does not apply to `subject` (its kind or its capabilities), or nil.
    public func skipReason(for subject: ConformanceSubject) -> String? {
        subject.kindMismatch(kind) ?? skipReason(for: subject.capabilities)
    }

    /// Runs the scenario against `context`'s subject; the context holds what it observed.
    public func run(_ context: StressContext) throws(StressFailure) {
        try body(context)
    }
}

/// The scenario could not run to its end (the subject stalled, refused work, …).
public struct StressFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// Whether the run could not judge (too short to see what it looks for) rather than
    /// break: the run is then `inconclusive`, which never gates.
    public let inconclusive: Bool
    /// A failure saying why the scenario could not finish, or could not judge.
    public init(_ description: String, inconclusive: Bool = false) {
        self.description = description
        self.inconclusive = inconclusive
    }
}

/// The outcomes of one scenario as the compiler checks them: an enum per scenario, whose raw
/// values are the names reports use. A misspelt outcome does not compile, and one recorded
/// by a scenario that did not declare it makes the run an error rather than vanish.
public protocol StressOutcome: RawRepresentable<String>, CaseIterable, Sendable {
    /// How the outcome is judged and what it means.
    var judgement: StressScenario.Judgement { get }
}

/// Every scenario, in report order.
public enum StressCatalogue {
    public static let all: [StressScenario] = [
        .fanIn, .disposeRace, .recursiveStorm, .timerStorm, .repeatingCancelRace, .currentChurn,
        .trampolineAndVirtualLoad, .throughput, .growth,
        .executorThroughput, .sleepStorm, .sleepThroughput,
    ]

    /// Scenarios that run only when named: a soak is meant to take hours.
    public static let optIn: [StressScenario] = [.soak]

    /// The scenario named `id`, if any, opt-in ones included.
    public static func scenario(_ id: ScenarioID) -> StressScenario? { (all + optIn).first { $0.id == id } }
}
