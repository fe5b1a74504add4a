import Foundation
import SchedulerMutants
import SchedulerProbes
import Schedulers
import Synchronization
import TestSupport
import Testing

@testable import SchedulerConformance

/// What a result says beyond passed and failed: inconclusive when the risky situation did
/// not occur, guaranteed when no scheduler on this API can fail, and precise messages.
@Suite struct VerdictTests {
    /// Correct subjects run with these bounds too, so they grow under the sanitizer.
    static let timing = Timing(
        mustHappen: .seconds(2) * ThreadSanitizerBuild.slowdown, quietWindow: .milliseconds(20),
        lateness: .milliseconds(50) * ThreadSanitizerBuild.slowdown,
        ruleTimeout: .seconds(30) * ThreadSanitizerBuild.slowdown
    )

    @Test func aRuleWhoseSituationNeverOccurredIsInconclusiveNotPassed() async throws {
        // Claims concurrency but runs one action at a time: CUR-7's pairs never overlap.
        let mutant = try #require(Mutants.named("serial-claiming-concurrency"))
        let result = await OwnThread.run(.rules) {
            ConformanceRunner.run(mutant.subject, rules: [RuleCatalogue.rule(.cur7)], timing: Self.timing)[0]
        }
        #expect(result.status == .inconclusive, "\(result.status): \(result.message ?? "")")
        #expect(result.exercised == false)
        #expect(result.level == .required)
        #expect(result.message?.contains("ever ran at once") == true)
    }

    /// A correct queue scheduler whose target queue runs nothing for 300 ms after the rule
    /// makes it (as Dispatch's global queues do while test bodies hold their threads):
    /// its ticks and the plain actions the suite hands it wait alike, so TIM-6 and TIM-12
    /// cannot blame the timer. The first tick, queued before the plain actions, runs before
    /// them; it must not excuse their wait.
    @Test(.nightly("judges a timer by the machine's noise"), arguments: [RuleID.tim6, .tim12])
    func aTimerWhoseTargetQueueStallsIsNotBlamed(_ rule: RuleID) async {
        let stalled = ConformanceSubject(name: "queue on a stalled target") {
            let target = DispatchQueue(label: "stalled target")
            target.async { Thread.sleep(forTimeInterval: 0.3) }
            return QueueScheduler(name: "stalled", targetQueue: target)
        }
        let result = await OwnThread.run(.rules) {
            ConformanceRunner.run(stalled, rules: [RuleCatalogue.rule(rule)], timing: Self.timing)[0]
        }
        #expect(result.status == .inconclusive, "\(rule) \(result.status): \(result.message ?? "")")
        #expect(result.message?.contains("too noisy") == true, "\(result.message ?? "")")
    }

    /// A correct concurrent scheduler one of whose ticks loses its thread's core for 40 ms in
    /// the middle of the suite's action (a signal whose handler sleeps stands in for a
    /// preemption): the next tick can only start once that action returned, late while the
    /// suite's timers and a plain action kept time. TIM-12 sees the action run past its length
    /// and does not blame the timer.
    ///
    /// The signal comes from another thread, which a loaded machine can hold off past the
    /// action: then nothing stalls (the handler sleeps only inside the action) and the next
    /// ticks try again. A run in which no tick was stalled, or that the rule found too noisy
    /// to judge, did not show the situation, and the rule runs again.
    @Test(
        .nightly("waits for a preempted tick, which a run may not show"),
        .disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer delivers a signal only after the action"))
    func aTickHeldBackByTheTickBeforeItIsNotBlamed() async {
        for _ in 0..<5 {
            let stalled = TickPreempting(stalledTicks: 4..<9)
            let subject = ConformanceSubject(name: "concurrent, one tick preempted") { stalled }
            let result = await OwnThread.run(.rules) {
                ConformanceRunner.run(subject, rules: [RuleCatalogue.rule(.tim12)], timing: Self.timing)[0]
            }
            #expect(result.status != .failed, "\(result.message ?? "")")
            if stalled.actionOverran, result.status != .inconclusive {
                #expect(result.status == .passed, "\(result.status): \(result.message ?? "")")
                return
            }
        }
        Issue.record("in five runs of the rule none both stalled a tick's action and was judged")
    }

    /// A correct timer whose thread, due to tick, is kept off its core for 60 ms (it shares
    /// one with spinning threads) is held back by the machine: the thread's count of time
    /// spent waiting for a core says so, and TIM-12 does not blame the timer, whether the
    /// thread ran the timer's earlier ticks or is one of a pool the suite never saw run its
    /// code (read as the suite's timer fired at the grid point). The same tick held back by
    /// a sleep (the thread never waited for a core: the timer's own doing) fails it, and the
    /// failure says how long the thread waited. A run the rule found too noisy to judge did
    /// not show either, and runs again; so does a run whose stalled tick was held back by more
    /// than its wait for a core, as the thread itself measured it (the rest of its delay is
    /// neither its wait nor the rule's business to excuse).
    ///
    /// One case at a time: beside each other, each one's fifteen spinners on the first core
    /// held back the other's timers and rule.
    ///
    /// Not under the sanitizer: there, beside the soak and the third-party tests, a run is
    /// too noisy to judge, or its tick held back by more than a wait for a core. The verdict
    /// is `make test`'s; the rule's paths run under the sanitizer in every reference subject's
    /// catalogue.
    @Test(
        .nightly("makes a thread wait for a core, which takes up to ten runs"),
        .enabled(if: CoreWait.now() != nil, "the kernel does not count a thread's wait for a core here"),
        .disabled(if: ThreadSanitizerBuild.isEnabled, "too noisy under the sanitizer to make the situation"),
        .serialized, arguments: [ThreadTicking.Threads.one, .freshPerTick])
    func aTickWhoseThreadWaitedForACoreIsNotBlamed(_ threads: ThreadTicking.Threads) async {
        // The result of the first run that showed the situation, or what each run showed.
        func judge(_ stall: ThreadTicking.Stall) async -> Result<RuleResult, Unjudged> {
            var runs: [String] = []
            for _ in 0..<10 {
                let unexplained = Box<Int64>(0)
                let subject = ConformanceSubject(name: "ticks on threads of its own") {
                    ThreadTicking(stall, threads, unexplained: unexplained)
                }
                let result = await OwnThread.run(.rules) {
                    ConformanceRunner.run(subject, rules: [RuleCatalogue.rule(.tim12)], timing: Self.timing)[0]
                }
                let pure = unexplained.value <= ThreadTicking.unexplainedSlack
                if result.status != .inconclusive, pure || stall == .sleeps { return .success(result) }
                runs.append(
                    "\(result.status.rawValue), \(Double(unexplained.value) / 1e6) ms not a wait for a core"
                        + (result.status == .inconclusive ? " (\(result.message ?? ""))" : ""))
            }
            return .failure(Unjudged(runs: runs))
        }
        switch await judge(.waitsForACore) {
        case .success(let waited): #expect(waited.status == .passed, "\(waited.message ?? "")")
        case .failure(let unjudged): Issue.record("no run both judged and held back by a wait alone: \(unjudged)")
        }
        switch await judge(.sleeps) {
        case .success(let slept):
            #expect(slept.status == .failed, "\(slept.message ?? "")")
            #expect(slept.message?.contains("for a core") == true, "\(slept.message ?? "")")
        case .failure(let unjudged): Issue.record("inconclusive ten times: \(unjudged)")
        }
    }

    @Test func aRuleNoSchedulerCanFailIsReportedAsGuaranteed() throws {
        let subject = try #require(ReferenceSubjects.all.first { $0.name == "trampoline" })
        let results = ConformanceRunner.run(
            subject, rules: [RuleID.cur4, .cur5, .trm1].map(RuleCatalogue.rule), timing: Self.timing)
        #expect(results.map(\.status) == [.guaranteed, .guaranteed, .passed])
        #expect(results.map(\.exercised) == [false, false, true])
        #expect(results[0].message?.contains("CurrentScheduler.run(as:)") == true)
        #expect(RuleCatalogue.all.filter { $0.guarantee != nil }.map(\.id) == [.cur4, .cur5, .lin5])
    }

    @Test func sequencesNameLossReorderingAndDoubling() throws {
        let subject = ConformanceSubject(name: "test") { TestScheduler() }
        let context = RuleContext(subject: subject, timing: Self.timing, mainThreadDriven: false)
        func message(_ observed: [Int]) -> String? {
            do { try context.expectSequence(observed, [0, 1, 2, 3]) } catch { return error.message }
            return nil
        }
        #expect(message([0, 1, 2, 3, -1]) == nil)
        #expect(message([0, 1, 3, -1])?.contains("never ran (lost)") == true)
        #expect(message([0, 1, 3, -1, 2])?.contains("reordered, not lost") == true)
        #expect(message([0, 1, 1, 2, 3, -1])?.contains("more than once") == true)
        #expect(message([0, 2, 1, 3, -1])?.contains("order broken") == true)
    }

    @Test func resultsCarryTheirLevelAndOldSummariesStillRead() throws {
        let subject = try #require(ReferenceSubjects.all.first { $0.name == "test" })
        let results = ConformanceRunner.run(
            subject, rules: [RuleCatalogue.rule(.vt1), RuleCatalogue.rule(.tim2)], timing: Self.timing)
        #expect(results.map(\.level) == [.required, .stochastic])
        #expect(results.map(\.status) == [.passed, .skipped])
        let old = #"{"passed": 3, "failed": 1, "skipped": 2, "timeout": 0, "error": 0, "gatingFailures": 1}"#
        let summary = try JSONDecoder().decode(StatusSummary.self, from: Data(old.utf8))
        #expect(summary.passed == 3 && summary.inconclusive == 0 && summary.guaranteed == 0)
    }

    @Test func aWallClockRuleIsSkippedWithoutTheHookAndRunsWithIt() async throws {
        let rule = RuleCatalogue.rule(.tim14)
        let queue = try #require(ReferenceSubjects.all.first { $0.name == "queue" })
        #expect(rule.skipReason(for: queue)?.contains("wall-clock step hook") == true)
        let mutant = try #require(Mutants.named("wall-clock-deadlines"))
        #expect(rule.skipReason(for: mutant.subject) == nil)
        // The queue scheduler reads a monotonic clock: a hook that moves a wall clock it never
        // reads changes nothing, and the rule passes.
        // A correct real-time subject on a machine the other suites load: bounds that only a
        // stalled timer (the fault: an hour) can exceed.
        let noStep: @Sendable (Duration) -> Void = { _ in }
        let hooked = ConformanceSubject(name: "queue with a hook", origin: .reference, wallClockStep: noStep) {
            QueueScheduler(name: "hooked")
        }
        let loaded = Timing(
            mustHappen: .seconds(10) * ThreadSanitizerBuild.slowdown, quietWindow: .milliseconds(100),
            lateness: .seconds(1), ruleTimeout: .seconds(60) * ThreadSanitizerBuild.slowdown
        )
        // Off the pool, which the queue's global target queue is on Linux.
        let result = await OwnThread.run(.rules) { ConformanceRunner.run(hooked, rules: [rule], timing: loaded)[0] }
        #expect(result.status == .passed, "\(result.status): \(result.message ?? "")")
    }
}
