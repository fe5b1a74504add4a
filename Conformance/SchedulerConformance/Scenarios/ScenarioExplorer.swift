import SchedulerProbes
import Schedulers

/// How long the model-checked rules explore, and from which seed.
public struct Exploration: Sendable, Codable, Equatable {
    /// How long each model-checked rule generates and runs scenarios for one subject;
    /// shrinking a failure takes up to as long again.
    public var budget: Duration
    /// The first scenario's seed; nil draws one, which a failure prints.
    public var seed: UInt64?
    /// Runs only the scenario of ``seed``, again and again, for the budget.
    public var replay: Bool

    /// Explore for `budget` from `seed` (a drawn one when nil); with `replay`, only `seed`'s scenario.
    public init(budget: Duration = .milliseconds(1500), seed: UInt64? = nil, replay: Bool = false) {
        self.budget = budget
        self.seed = seed
        self.replay = replay
    }

    /// 1.5 s per rule and subject, from a drawn seed.
    public static let standard = Exploration()
}

/// Generates scenarios from seeds, runs each a few times with different jitter, checks each
/// history against the model, and turns a refusal into a failure that names the smallest
/// scenario still refused and the seed that replays it.
public enum ScenarioExplorer {
    /// How many runs of each scenario, each with its own jitter.
    static let runsPerScenario = 6

    /// What one exploration did.
    public struct Summary: Sendable, Equatable {
        /// Scenarios generated, runs made, and runs in which some calls overlapped.
        public var scenarios = 0, runs = 0, conclusive = 0
    }

    /// Explores `profile` within `context`'s budget, making a fresh instance for every run;
    /// `target` names the action an operation acts on (a dispose's), for the meetings.
    /// - Throws: a failure naming the minimal refused scenario; an inconclusive result when no
    ///   run overlapped anything.
    @discardableResult
    public static func explore<Model>(
        _ rule: RuleID, profile: String, context: RuleContext,
        generate: (inout SplitMix64) -> Scenario<Model.Operation>,
        target: (Model.Operation) -> Int?,
        instance: (Jitter) throws(RuleFailure) -> ScenarioInstance<Model>
    ) throws(RuleFailure) -> Summary {
        let exploration = context.exploration
        let started = ContinuousClock.now
        var seeds = SplitMix64(seed: exploration.seed ?? UInt64.random(in: 1...UInt64.max))
        var nextSeed = exploration.seed
        var summary = Summary()
        repeat {
            let seed = nextSeed ?? seeds.next()
            nextSeed = exploration.replay ? exploration.seed : nil
            var random = SplitMix64(seed: seed)
            let scenario = generate(&random)
            summary.scenarios += 1
            for attempt in 0..<runsPerScenario {
                let jitter = Jitter(
                    seed: seed &+ UInt64(attempt), targets: scenario.parallel.map { $0.map(target) },
                    actions: scenario.operations.count)
                let execution = try ScenarioRunner.run(
                    scenario, on: try instance(jitter), jitter: jitter, within: context.timing.mustHappen)
                summary.runs += 1
                if execution.overlaps > 0 { summary.conclusive += 1 }
                if case .refused(let refusal) = Linearizability.check(execution.history, from: execution.initial) {
                    let minimal = try shrink(
                        (scenario, execution, refusal), seed: seed, within: exploration.budget, context: context,
                        target: target, instance: instance)
                    throw RuleFailure(
                        Refutation(
                            rule: rule, profile: profile, subject: context.subject.name, seed: seed,
                            scenario: minimal.scenario, original: scenario, execution: minimal.execution,
                            refusal: minimal.refusal
                        ).description)
                }
            }
        } while ContinuousClock.now - started < exploration.budget
        let seconds = (ContinuousClock.now - started).timeInterval
        context.note(
            "\(summary.scenarios) scenarios (\(Int(Double(summary.scenarios) / seconds))/s), \(summary.runs) runs, \(summary.conclusive) with calls overlapping"
        )
        if summary.conclusive == 0 {
            throw RuleFailure(
                "in \(summary.runs) runs of \(summary.scenarios) scenarios no two calls ever overlapped, nor did any call meet a running action: nothing concurrent was judged",
                kind: .inconclusive)
        }
        return summary
    }

    private typealias Refused<Model: SequentialModel> = (
        scenario: Scenario<Model.Operation>, execution: ScenarioExecution<Model>,
        refusal: Linearizability.Refusal<Model>
    )

    /// The smallest scenario reached by dropping threads and operations while some run of it
    /// is still refused (up to 16 runs of each candidate), within `bound`.
    private static func shrink<Model>(
        _ failing: Refused<Model>, seed: UInt64, within bound: Duration, context: RuleContext,
        target: (Model.Operation) -> Int?, instance: (Jitter) throws(RuleFailure) -> ScenarioInstance<Model>
    ) throws(RuleFailure) -> Refused<Model> {
        let deadline = ContinuousClock.now + max(bound, .seconds(1))
        var current = failing
        var progressed = true
        while progressed, ContinuousClock.now < deadline {
            progressed = false
            candidates: for candidate in current.scenario.shrinks {
                for attempt in 0..<16 {
                    guard ContinuousClock.now < deadline else { break candidates }
                    let jitter = Jitter(
                        seed: seed &+ UInt64(attempt), targets: candidate.parallel.map { $0.map(target) },
                        actions: candidate.operations.count)
                    let execution = try ScenarioRunner.run(
                        candidate, on: try instance(jitter), jitter: jitter, within: context.timing.mustHappen)
                    if case .refused(let refusal) = Linearizability.check(execution.history, from: execution.initial) {
                        current = (candidate, execution, refusal)
                        progressed = true
                        break candidates
                    }
                }
            }
        }
        return current
    }
}
