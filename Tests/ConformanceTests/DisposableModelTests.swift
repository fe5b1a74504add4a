import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@testable import SchedulerConformance

/// The package's composite and serial disposables, called from several threads at once and
/// judged against their model, as the LIN rules judge subjects; and four adversaries, each
/// wrong only where two calls meet, which the same exploration must refute in every run.
@Suite struct DisposableModelTests {
    /// Runs per adversary. Under ThreadSanitizer one, in which only a conclusive pass is an
    /// escape, as the mutant kills are judged there: the sanitizer looks for races in the
    /// paths an exploration takes, and a sanitizer run beside others may gather too few
    /// meetings to judge; that each adversary is
    /// refused in ten runs of ten is `make test`'s to show.
    static let runs = ThreadSanitizerBuild.isEnabled ? 1 : 10

    /// Explores `profile` on instances from `instance` for 0.6 s (and on, until 150 meetings of
    /// two calls happened); throws the failure if some run is refused.
    static func explore(
        _ profile: String, serial: Bool, disposeOnly: Bool = false,
        instance: @escaping @Sendable () -> ScenarioInstance<DisposableModel>
    ) throws(RuleFailure) {
        let context = RuleContext(
            subject: ConformanceSubject(name: profile) { ImmediateScheduler.shared }, timing: MutantKillTests.timing,
            mainThreadDriven: false, exploration: Exploration(budget: .milliseconds(600), meetings: 150))
        try ScenarioExplorer.explore(
            nil, profile: profile, context: context,
            generate: {
                disposeOnly
                    ? DisposableScenarios.generateDisposeOnly(&$0) : DisposableScenarios.generate(&$0, serial: serial)
            },
            aim: DisposableScenarios.aim, evidence: [.calls], pairing: DisposableScenarios.kind,
            instance: { _ in instance() })
    }

    /// Never refused. A busy test process may leave too few meetings to judge (the exploration
    /// then says so, inconclusive), which is no pass, and no failure of the disposables either;
    /// the adversaries below show the same exploration refuses a wrong one in every run.
    @Test func theReferenceDisposablesAreLinearizable() {
        Self.neverRefused("composite disposable", serial: false) {
            DisposableScenarios.compositeInstance { CompositeDisposable() }
        }
        Self.neverRefused("serial disposable", serial: true) {
            DisposableScenarios.serialInstance { SerialDisposable($0) }
        }
        Self.neverRefused("serial disposable made holding one", serial: true) {
            DisposableScenarios.serialInstance(holdingFirst: true) { SerialDisposable($0) }
        }
        Self.neverRefused("action disposable", serial: true, disposeOnly: true) {
            DisposableScenarios.actionInstance { ActionDisposable($0) }
        }
    }

    /// Records an issue if exploring `profile` refuses a run; an exploration that gathered too
    /// little to judge is inconclusive, not refused.
    static func neverRefused(
        _ profile: String, serial: Bool, disposeOnly: Bool = false,
        instance: @escaping @Sendable () -> ScenarioInstance<DisposableModel>
    ) {
        do throws(RuleFailure) {
            try explore(profile, serial: serial, disposeOnly: disposeOnly, instance: instance)
        } catch {
            #expect(error.kind == .inconclusive, "\(profile): \(error.message)")
        }
    }

    /// A serial disposable that drops the member it was made with, and an action disposable
    /// whose check and set are two steps, are refused in every run.
    @Test func aDroppedFirstMemberAndADoubledActionAreRefusedInEveryRun() async {
        let dropped = await OwnThread.run(.rules) {
            Self.escapes("serial disposable made holding one", serial: true) {
                DisposableScenarios.serialInstance(holdingFirst: true) { _ in SerialDisposable() }
            }
        }
        #expect(dropped.isEmpty, "a dropped first member escaped in \(dropped.count) of \(Self.runs) runs: \(dropped)")
        let doubled = await OwnThread.run(.rules) {
            Self.escapes("action disposable", serial: true, disposeOnly: true) {
                DisposableScenarios.actionInstance { RacyAction($0) }
            }
        }
        #expect(doubled.isEmpty, "a doubled action escaped in \(doubled.count) of \(Self.runs) runs: \(doubled)")
    }

    /// LIN-5 runs the same exploration from the catalogue, so `conformance mutate` judges the
    /// library's disposables too; a pass is the library's, so it is reported as guaranteed.
    @Test func theCatalogueChecksThePackagesDisposablesAsAGuarantee() async {
        let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "lin-5") }
        let result = await OwnThread.run(.rules) {
            ConformanceRunner.run(queue, rules: [RuleCatalogue.rule(.lin5)], timing: MutantKillTests.timing)[0]
        }
        // A busy machine may leave the meetings short: inconclusive, never failed.
        #expect(result.status == .guaranteed || result.status == .inconclusive, "\(result.message ?? "")")
        #expect(
            RuleCatalogue.rule(.lin5).skipReason(for: ConformanceSubject(name: "none") { ImmediateScheduler.shared })
                != nil)
    }

    /// The runs of `runs` in which exploring `profile` did not refuse: a pass, and (but under
    /// the sanitizer) an inconclusive exploration too, since a risk not tried is no catch.
    static func escapes(
        _ profile: String, serial: Bool, disposeOnly: Bool = false,
        instance: @escaping @Sendable () -> ScenarioInstance<DisposableModel>
    ) -> [String] {
        (0..<runs).compactMap { run in
            guard let error = conclusive(profile, serial: serial, disposeOnly: disposeOnly, instance: instance)
            else { return "run \(run) passed" }
            let escaped = error.kind != .failed && !(ThreadSanitizerBuild.isEnabled && error.kind == .inconclusive)
            return escaped ? "run \(run) \(error.kind): \(error.message)" : nil
        }
    }

    /// How exploring `profile` ended: nil for a pass, else the first refusal, or the last
    /// exploration short of meetings when each was until ``explorationDeadline``.
    static func conclusive(
        _ profile: String, serial: Bool, disposeOnly: Bool = false,
        instance: @escaping @Sendable () -> ScenarioInstance<DisposableModel>
    ) -> RuleFailure? {
        // An exploration short of meetings judged nothing either way, so another one is no
        // retry into a pass (as RepeatingGrid measures again): a conclusive one decides.
        // On a machine loaded far past its cores an exploration can stay short of meetings
        // for several budgets.
        let deadline = ContinuousClock.now + explorationDeadline
        while true {
            do throws(RuleFailure) {
                try explore(profile, serial: serial, disposeOnly: disposeOnly, instance: instance)
                return nil
            } catch  where error.kind == .inconclusive && ContinuousClock.now < deadline {
                continue
            } catch {
                return error
            }
        }
    }

    /// How long a run goes on exploring while each exploration is short of meetings: an upper
    /// bound, reached only on a machine too busy for two threads to meet.
    static let explorationDeadline = Duration.seconds(90)

    @Test(arguments: RacyComposite.Fault.allCases)
    func aRacyCompositeIsRefusedInEveryRun(_ fault: RacyComposite.Fault) async {
        let escaped = await OwnThread.run(.rules) {
            Self.escapes("composite disposable", serial: false) {
                DisposableScenarios.compositeInstance { RacyComposite(fault) }
            }
        }
        #expect(escaped.isEmpty, "\(fault) escaped in \(escaped.count) of \(Self.runs) runs: \(escaped)")
    }

    @Test(arguments: RacySerial.Fault.allCases)
    func aRacySerialDisposableIsRefusedInEveryRun(_ fault: RacySerial.Fault) async {
        let escaped = await OwnThread.run(.rules) {
            Self.escapes("serial disposable", serial: true) {
                DisposableScenarios.serialInstance { _ in RacySerial(fault) }
            }
        }
        #expect(escaped.isEmpty, "\(fault) escaped in \(escaped.count) of \(Self.runs) runs: \(escaped)")
    }

    /// Pairs are of calls on two threads; the jitter meets every pair the threads offer, and
    /// an exploration short of one pair names it.
    @Test func meetingsAreCountedByPairOfKindsAndEveryPairIsMet() {
        let parallel: [[DisposableOperation]] = [[.add(1), .remove(1), .read], [.remove(2)], [.isDisposed]]
        let offered = Set(Jitter.pairs(ofKinds: parallel.map { $0.map(DisposableScenarios.kind) }).keys)
        #expect(offered == [.init("add", "remove"), .init("remove", "remove")])
        let met = Set(
            (0..<600 as Range<UInt64>).compactMap { seed -> ScenarioExplorer.CallPair? in
                let jitter = Jitter(
                    seed: seed, aims: parallel.map { $0.map(DisposableScenarios.aim) }, points: [],
                    kinds: parallel.map { $0.map(DisposableScenarios.kind) })
                let kinds = jitter.metCalls.compactMap { DisposableScenarios.kind(parallel[$0.thread - 1][$0.index]) }
                return kinds.count == 2 ? .init(kinds[0], kinds[1]) : nil
            })
        #expect(met == offered)
        var summary = ScenarioExplorer.Summary()
        summary.offeredPairs = offered
        summary.pairMeetings = [.init("add", "remove"): 40, .init("remove", "remove"): 3]
        #expect(summary.shortPair(needing: 15)?.pair == .init("remove", "remove"))
        #expect(summary.shortPair(needing: 3) == nil)
    }

    /// A refusal names the member the composite lost and replays from its seed. Explored off
    /// the cooperative pool and again while short of meetings, as the runs below are: on a
    /// loaded machine one exploration can meet a fraction of the pairs it needs.
    @Test func aRefusalNamesTheLostMemberAndTheSeed() async {
        let failure = await OwnThread.run(.rules) {
            Self.conclusive("composite disposable", serial: false) {
                DisposableScenarios.compositeInstance { RacyComposite(.addChecksThenAppends) }
            }
        }
        guard let failure else {
            Issue.record("the racy composite passed")
            return
        }
        // Under the sanitizer, beside other test processes, the meetings may fall short.
        if ThreadSanitizerBuild.isEnabled && failure.kind == .inconclusive { return }
        #expect(failure.kind == .failed, "\(failure.message)")
        // The member is named by what its loss did: owed at the end, an add that should have
        // been refused, or (when the refusal is a read that counted it) the state the model
        // was in, which owes it a dispose.
        let named = ["never disposed", "refused (already disposed)", "owes a dispose to #"]
        #expect(named.contains { failure.message.contains($0) }, "\(failure.message)")
        #expect(failure.message.contains("Exploration(seed: "))
    }
}
