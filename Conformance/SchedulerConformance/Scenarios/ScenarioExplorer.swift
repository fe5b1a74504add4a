import SchedulerProbes
import Schedulers

/// How long the model-checked rules explore, and from which seed.
public struct Exploration: Sendable, Codable, Equatable {
    /// How long each model-checked rule generates and runs scenarios for one subject at
    /// least, however soon its evidence came (more finds rarer races); shrinking a failure
    /// takes up to as long again.
    public var budget: Duration
    /// The first scenario's seed; nil draws one, which a failure prints.
    public var seed: UInt64?
    /// Runs only the scenario of ``seed``, again and again, for the budget.
    public var replay: Bool
    /// How many runs whose meeting happened (two chosen points on two cores at once) an
    /// exploration needs of each kind of meeting before it may pass. A quiet 2-core machine
    /// gathers them in about a second; a loaded one, where threads seldom hold their cores
    /// together, explores on, up to ``evidenceCap`` (or ten budgets, if longer; an eighth of
    /// that in `make tsan`'s build), and is inconclusive if it still has too few.
    public var meetings: Int
    /// The meetings of a call and the suite's code inside the subject it needs, where a rule
    /// needs more of those than of the others (nil: ``meetings``).
    public var returnMeetings: Int?

    /// How long an exploration goes on for its meetings at most, with the standard budget.
    public static let evidenceCap: Duration = .seconds(15)

    /// Explore for `budget` from `seed` (a drawn one when nil), and on until `meetings`
    /// meetings happened; with `replay`, only `seed`'s scenario.
    public init(
        budget: Duration = .milliseconds(500), seed: UInt64? = nil, replay: Bool = false, meetings: Int = 300
    ) {
        self.budget = budget
        self.seed = seed
        self.replay = replay
        self.meetings = meetings
    }

    /// At least half a second per rule and subject, and on until the meetings happened,
    /// from a drawn seed: the evidence, not a fixed time, ends an exploration.
    public static let standard = Exploration()
}

/// Generates scenarios from seeds, runs each a few times with different jitter, checks each
/// history against the model, and turns a refusal into a failure that names the smallest
/// scenario still refused and the seed that replays it.
public enum ScenarioExplorer {
    /// How many runs of each scenario, each with its own jitter.
    static let runsPerScenario = 6

    /// Explores `profile` within `context`'s budget, making a fresh instance for every run;
    /// `aim` says what an operation acts on, for choosing the meetings; `evidence` names the
    /// kinds of meeting that test the profile's risky hand-offs, of which the exploration
    /// needs ``Exploration/meetings`` each (fewer of ``Jitter/MeetingKind/passing``). (A
    /// manual clock whose sleepers run inside its advance meets them there: its races are
    /// between calls.) Without `pointsOfTheSetUp`, meetings wait only at points the parallel
    /// part makes: a sleeper set up before it went past its point before any call of the
    /// parallel part could meet it there, while a queued
    /// action or one that runs only when virtual time is driven may still be ahead of its
    /// point. With `resumptionsMeet`, the instance reports when each point is resumed
    /// (``Jitter/whenResumed(_:)``), and some runs meet a point there. `pairing` names the
    /// kind of each call that changes the subject (nil for one that only reads); with it, the
    /// exploration needs a tenth of ``Exploration/meetings`` (at least ten) of every pair of
    /// kinds the scenarios put on two threads: a narrow race is between two particular calls
    /// (two removes, each shifting what the other finds), which the meetings in all may have
    /// tried too seldom. `rule` is the rule whose
    /// failure it reports, for the replay line; nil for a test of the package's own types.
    /// `explanation` may add a line to a failure from its minimal scenario (the declaration
    /// that would keep the rule from making it).
    /// - Throws: a failure naming the minimal refused scenario; an inconclusive result when no
    ///   run overlapped anything.
    @discardableResult
    public static func explore<Model>(
        _ rule: RuleID?, profile: String, context: RuleContext,
        generate: (inout SplitMix64) -> Scenario<Model.Operation>,
        aim: (Model.Operation) -> Jitter.Aim, evidence: [Jitter.MeetingKind] = [.calls, .callAndReturn],
        pointsOfTheSetUp: Bool = true, resumptionsMeet: Bool = false, pairing: ((Model.Operation) -> String?)? = nil,
        exploration: Exploration? = nil, explanation: (Scenario<Model.Operation>) -> String? = { _ in nil },
        instance: (Jitter) throws(RuleFailure) -> ScenarioInstance<Model>
    ) throws(RuleFailure) -> Summary {
        let exploration = exploration ?? context.exploration
        let started = ContinuousClock.now
        var seeds = SplitMix64(seed: exploration.seed ?? UInt64.random(in: 1...UInt64.max))
        var nextSeed = exploration.seed
        var summary = Summary()
        let crew = ThreadCrew(Scenario<Model.Operation>.mostThreads, pinned: true)
        let pairsNeeded = max(10, exploration.meetings / 10)
        /// The kinds of meeting still short of their share, which the next runs' draws favour
        /// when the evidence is two calls and a call with a return (a pair of kinds short
        /// counts as meetings of two calls short). Other evidence keeps every draw: LIN-3's
        /// bar of passing meetings was set for the races its other draws find on the way.
        var short: Set<Jitter.MeetingKind> {
            Set(
                evidence.filter { kind in
                    summary.meetings(of: kind) < Summary.needed(of: kind, in: exploration)
                        || (kind == .calls && summary.shortPair(needing: pairsNeeded) != nil)
                })
        }
        var wanted = Set(evidence)
        var learned = Jitter.LearnedLags()
        /// Runs `scenario` once on a fresh instance, with the `index`-th jitter of `seed`.
        func trial(_ scenario: Scenario<Model.Operation>, seed: UInt64, index: Int) throws(RuleFailure) -> Trial<Model>
        {
            let jitter = Jitter(
                seed: seed &+ UInt64(index), aims: scenario.parallel.map { $0.map(aim) },
                points: (pointsOfTheSetUp ? scenario.operations : scenario.parallel.flatMap { $0 }).compactMap {
                    aim($0).makes
                },
                resumable: resumptionsMeet ? scenario.operations.compactMap { aim($0).makes } : [],
                kinds: pairing.map { kind in scenario.parallel.map { $0.map(kind) } },
                dues: scenario.operations.reduce(into: [:]) { dues, operation in
                    if case .makes(let point, let due?) = aim(operation) { dues[point] = due }
                }, onlyCalls: evidence == [.calls], short: evidence == [.calls, .callAndReturn] ? wanted : nil,
                learned: learned)
            let execution: ScenarioExecution<Model>
            do {
                execution = try ScenarioRunner.run(
                    scenario, on: try instance(jitter), jitter: jitter, crew: crew, within: context.timing.mustHappen)
            } catch  where error.kind == .hung {
                // Where each thread of the parallel part is stuck, and (in a tool) every stack.
                throw context.hang(
                    error.message, stuck: crew.stragglers.map { ("scenario thread \($0.index + 1)", $0.threadID) })
            }
            switch Linearizability.check(execution.history, from: execution.initial) {
            case .linearizable:
                return Trial(scenario: scenario, execution: execution, jitter: jitter, refusal: nil)
            case .refused(let refusal):
                return Trial(scenario: scenario, execution: execution, jitter: jitter, refusal: refusal)
            case .undecided:
                return Trial(scenario: scenario, execution: execution, jitter: jitter, refusal: nil, undecided: true)
            }
        }
        var explored = false
        repeat {
            let seed = nextSeed ?? seeds.next()
            nextSeed = exploration.replay ? exploration.seed : nil
            var random = SplitMix64(seed: seed)
            let scenario = generate(&random)
            wanted = short
            summary.scenarios += 1
            if let pairing {
                summary.offeredPairs.formUnion(Jitter.pairs(ofKinds: scenario.parallel.map { $0.map(pairing) }).keys)
            }
            for index in 0..<runsPerScenario {
                let run = try trial(scenario, seed: seed, index: index)
                summary.runs += 1
                if index == 0, run.jitter.offersTaking { summary.takingScenarios += 1 }
                // A history the checker could not judge is no evidence, whatever met in it.
                if run.undecided {
                    summary.undecided += 1
                    continue
                }
                if run.execution.overlaps > 0 { summary.conclusive += 1 }
                switch run.execution.met {
                case .calls?:
                    summary.callMeetings += 1
                    let kinds = run.jitter.metCalls.compactMap { pairing?(scenario.parallel[$0.thread - 1][$0.index]) }
                    if kinds.count == 2 { summary.pairMeetings[CallPair(kinds[0], kinds[1]), default: 0] += 1 }
                case .callAndReturn?: summary.returnMeetings += 1
                case .passing?:
                    summary.returnMeetings += 1
                    summary.passingMeetings += 1
                case nil: break
                }
                if let meeting = run.jitter.meeting {
                    if case .taking = meeting.race, meeting.callLate != nil { summary.takingMeetings += 1 }
                    learned.learn(from: meeting)
                }
                guard run.refusal != nil else { continue }
                let minimal = try shrink(run, seed: seed, within: exploration.budget, trial: trial)
                throw RuleFailure(
                    Refutation(
                        rule: rule, profile: profile, subject: context.subject.name, seed: seed,
                        scenario: minimal.scenario, original: scenario, execution: minimal.execution,
                        refusal: minimal.refusal!
                    ).description + (explanation(minimal.scenario).map { "\n" + $0 } ?? ""))
            }
            let elapsed = ContinuousClock.now - started
            let evidenced =
                summary.shortKind(of: evidence, in: exploration) == nil
                && summary.shortPair(needing: pairsNeeded) == nil && !summary.takingsShort(in: exploration)
            explored =
                elapsed >= exploration.budget
                && (evidenced
                    || elapsed >= Timing.evidenceBudget(max(Exploration.evidenceCap, exploration.budget * 10)))
        } while !explored
        let seconds = (ContinuousClock.now - started).timeInterval
        context.note(
            """
            \(summary.scenarios) scenarios (\(Int(Double(summary.scenarios) / seconds))/s), \(summary.runs) runs \
            (\(summary.undecided) the checker could not decide), \(summary.conclusive) with calls overlapping; \
            \(summary.metDescription)
            """
        )
        let undecided =
            summary.undecided == 0
            ? ""
            : """
             (\(summary.undecided) runs whose history the checker could not decide within \
            \(Linearizability.stateLimit) states or \(Linearizability.timeLimit) are not counted)
            """
        if summary.conclusive == 0 {
            throw RuleFailure(
                """
                in \(summary.runs) runs of \(summary.scenarios) scenarios no two calls ever overlapped, nor did any \
                call meet a running action: nothing concurrent was judged\(undecided)
                """,
                kind: .inconclusive)
        }
        if let kind = summary.shortKind(of: evidence, in: exploration) {
            throw RuleFailure(
                """
                in \(summary.runs) runs of \(summary.scenarios) scenarios over \(Int(seconds)) s, \
                \(summary.metDescription) happened, and \(Summary.needed(of: kind, in: exploration)) \
                \(kind.meetingsName) were needed: the machine was too busy for the suite's threads to hold their \
                cores together, and the narrow races were too seldom tried to judge\(undecided)
                """,
                kind: .inconclusive)
        }
        if let (pair, met) = summary.shortPair(needing: pairsNeeded) {
            throw RuleFailure(
                """
                in \(summary.runs) runs of \(summary.scenarios) scenarios over \(Int(seconds)) s, calls of \(pair) \
                met \(met) times, of the \(pairsNeeded) needed for each pair of kinds of call: the machine was too \
                busy for the suite's threads to hold their cores together, and the race between those two calls was \
                too seldom tried to judge\(undecided)
                """,
                kind: .inconclusive)
        }
        if summary.takingsShort(in: exploration) {
            throw RuleFailure(
                """
                in \(summary.runs) runs of \(summary.scenarios) scenarios over \(Int(seconds)) s, a cancel met a run's \
                take of its sleeper \(summary.takingMeetings) times, of the \(Summary.takingsNeeded(in: exploration)) \
                needed: the machine was too busy for the suite's threads to hold their cores together, and the race \
                between a cancel and a run was too seldom tried to judge\(undecided)
                """,
                kind: .inconclusive)
        }
        return summary
    }
}
