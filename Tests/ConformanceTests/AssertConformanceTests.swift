import Foundation
import SchedulerConformance
import SchedulerConformanceTesting
import SchedulerMutants
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct AssertConformanceTests {
    @Test func aConformingSubjectRecordsNoIssue() {
        let subject = ConformanceSubject(name: "test scheduler", origin: .thirdParty) { TestScheduler() }
        let results = assertConformance(subject, rules: RuleCatalogue.all.filter { $0.category == .virtualTime })
        #expect(results.allSatisfy { $0.status == .passed || $0.status == .skipped })
        #expect(results.contains { $0.status == .passed })
    }

    @Test func fromAnAsyncTestTheRulesRunOffThePool() async {
        let inTask = Box<[Bool]>([])
        // Capabilities are given, so every scheduler made is one a rule asked for.
        let subject = ConformanceSubject(
            name: "test scheduler", origin: .thirdParty, capabilities: TestScheduler().capabilities
        ) {
            inTask.update { $0.append(withUnsafeCurrentTask { $0 != nil }) }
            return TestScheduler()
        }
        let results = await assertConformance(subject, rules: RuleCatalogue.all.filter { $0.category == .virtualTime })
        #expect(results.count == RuleCatalogue.all.filter { $0.category == .virtualTime }.count)
        #expect(results.allSatisfy { $0.status == .passed || $0.status == .skipped })
        #expect(
            !inTask.value.isEmpty && !inTask.value.contains(true), "schedulers were made inside a task: \(inTask.value)"
        )
    }

    @Test func clocksAndExecutorsAreCheckedByTheirProfiles() async {
        let clock = ConformanceSubject(name: "virtual clock", clock: { ClockUnderTest(TestScheduler().clock) })
        let clockResults = await assertConformance(clock)
        #expect(
            clockResults.filter { $0.status == .passed }.allSatisfy {
                RuleCatalogue.rule($0.rule).kind == .clock
            })
        // Under the sanitizer a racing part may run short of evidence (inconclusive); none fails.
        #expect(clockResults.filter { [.passed, .inconclusive].contains($0.status) }.count >= 10)
        #expect(!clockResults.contains { $0.status.isFailure })
        let executor = ConformanceSubject(
            name: "queue executor", executor: { ExecutorUnderTest(QueueScheduler(name: "executor").executor) })
        // Off the pool: the queue's target is one of Dispatch's global queues.
        let executorResults = await assertConformance(
            executor, rules: RuleCatalogue.all.filter { $0.category == .executor })
        // No process of its own for trap probes here: EXE-7 judges what it can, and this
        // executor answers false outside its jobs, so it still passes.
        #expect(
            executorResults.allSatisfy { $0.status == .passed || $0.status == .skipped },
            "\(executorResults.filter { $0.status != .passed })")
    }

    @Test func aBrokenSubjectRecordsOneIssuePerFailedRule() {
        let mutant = Mutants.all.first { $0.subject.name == "mutant-virtual-unstable-ties" }!
        withKnownIssue("the mutant breaks FIFO ties") {
            _ = assertConformance(mutant.subject, rules: [RuleCatalogue.rule(.vt4)])
        }
    }

    @Test func expectedDeviationsDoNotFail() {
        let mutant = Mutants.all.first { $0.subject.name == "mutant-virtual-unstable-ties" }!
        let results = assertConformance(mutant.subject, rules: [RuleCatalogue.rule(.vt4)], expectedDeviations: [.vt4])
        #expect(results.map(\.status) == [.failed])
    }

    @Test func aStuckSchedulerIsATimeoutOfTheRuleThatSawIt() {
        var timing = Timing.calibrate(scale: 1)
        timing.mustHappen = .seconds(1)
        let subject = ConformanceSubject(name: "stuck", origin: .thirdParty) { StuckScheduler() }
        let rules = [RuleID.ord1, .ord5].map(RuleCatalogue.rule)
        var results: [RuleResult] = []
        withKnownIssue("the scheduler never runs anything") {
            results = assertConformance(subject, rules: rules, timing: timing)
        }
        #expect(results.map(\.rule) == [.ord1, .ord5], "every rule has its result")
        #expect(
            results.allSatisfy { $0.status == .timeout && $0.message?.contains("the scheduler is stuck") == true },
            "\(results)")
        #expect(
            results.allSatisfy { $0.threadDump == nil },
            "stacks stop the whole test process: only a tool's worker takes them")
    }

    /// Without stacks (they would stop the whole test process), the producer threads' own
    /// stacks still say which call of the subject's never returned.
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer holds a blocked thread's signals back"))
    func aCallThatNeverReturnsIsNamedWithoutStacks() {
        var timing = Timing.calibrate(scale: 1)
        timing.mustHappen = .seconds(1)
        let blocking = BlocksProducers()
        defer { blocking.release() }
        let subject = ConformanceSubject(name: "blocks-producers", origin: .thirdParty) { blocking }
        let results = failing(subject, .thr1, timing: timing, "the scheduler never returns to its producers")
        #expect(results.map(\.status) == [.timeout], "\(results)")
        let message = results.first?.message ?? ""
        #expect(
            message.contains("stuck in `BlocksProducers.schedule(_:)`, called from producer thread "), "\(message)")
        #expect(results.first?.threadDump == nil)
    }

    /// A generated scenario's thread that never comes back from the subject is named with the
    /// call it is stuck in, as a producer thread is.
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer holds a blocked thread's signals back"))
    func aScenarioThreadStuckInTheSubjectIsNamed() {
        var timing = Timing.calibrate(scale: 1)
        timing.mustHappen = .seconds(1)
        let blocking = BlocksProducers(passing: .firstCaller)
        defer { blocking.release() }
        let subject = ConformanceSubject(name: "blocks-producers", origin: .thirdParty) { blocking }
        let results = failing(subject, .lin1, timing: timing, "the scheduler never returns to the scenario's threads")
        #expect(results.map(\.status) == [.timeout], "\(results)")
        let message = results.first?.message ?? ""
        #expect(message.contains("a call of the parallel part did not return within 1.0 seconds"), "\(message)")
        #expect(
            message.contains("stuck in `BlocksProducers.schedule(_:)`, called from scenario thread "), "\(message)")
    }

    /// A rule whose own thread never comes back from the subject is abandoned at the rule
    /// timeout, and the result names where that thread is stuck (the thread stays parked in
    /// the mutant until the test process ends).
    @Test(.disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer holds a blocked thread's signals back"))
    func anAbandonedRuleNamesTheCallItsThreadIsStuckIn() {
        var timing = Timing.calibrate(scale: 1)
        timing.ruleTimeout = .seconds(2)
        let results = failing(Mutants.hanging, .can6, timing: timing, "the mutant's repeating schedule never returns")
        #expect(results.map(\.status) == [.timeout], "\(results)")
        let message = results.first?.message ?? ""
        #expect(
            message.contains(
                "its thread was abandoned (blocked), stuck in `HangingMutant.schedule(at:repeatingEvery:leeway:_:)`"),
            "\(message)")
    }

    /// A clock whose sleep spins instead of returning: the rule's own wait names the call its
    /// task is stuck in as a runaway, spinning, not blocked. CLK-4 waits for the call (issue
    /// 27's third case: the message once said only "did not finish within 10 s"); CLK-2 for
    /// the sleeper's outcome, whose task is still on a thread (issue 47: it named no frame).
    @Test(
        .disabled(if: ThreadSanitizerBuild.isEnabled, "the sanitizer holds a running thread's signals back"),
        arguments: [
            (RuleID.clk4, "sleep(until: now) did not finish within 1.0 seconds; a runaway in `SpinsOnDueSleep.sleep("),
            (RuleID.clk2, "did not end within 1.0 seconds; a runaway in `SpinsOnDueSleep.sleep("),
        ])
    func aSleepSpinningOnACoreIsNamedAsSuch(rule: RuleID, expected: String) {
        var timing = Timing.calibrate(scale: 1)
        timing.mustHappen = .seconds(1)
        let clock = SpinsOnDueSleep()
        defer { clock.stop() }
        let subject = ConformanceSubject(
            name: "spins-on-every-sleep", origin: .thirdParty, clock: { ClockUnderTest(clock) })
        let results = failing(subject, rule, timing: timing, "the clock's sleep spins")
        #expect(results.map(\.status) == [.timeout], "\(results)")
        let message = results.first?.message ?? ""
        #expect(message.contains(expected), "\(message)")
        #expect(message.contains("called from its task (running: spinning on a core)"), "\(message)")
    }

    @Test func aLostActionOnALiveSchedulerIsStillAFailure() {
        let lossy = Mutants.all.first { $0.subject.name == "mutant-lossy" }!
        var timing = Timing.calibrate(scale: 1)
        timing.mustHappen = .seconds(1)
        let results = failing(lossy.subject, .thr1, timing: timing, "the mutant loses an action")
        #expect(results.map(\.status) == [.failed], "\(results)")
    }

    /// The results of `rule` on a subject that fails it, its failure a known issue.
    private func failing(_ subject: ConformanceSubject, _ rule: RuleID, timing: Timing, _ why: Comment)
        -> [RuleResult]
    {
        var results: [RuleResult] = []
        withKnownIssue(why) { results = assertConformance(subject, rules: [RuleCatalogue.rule(rule)], timing: timing) }
        return results
    }
}

/// Takes work and never runs it: its worker is stuck.
private final class StuckScheduler: Scheduler {
    let name = "stuck"
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }
    private let queue = Lock<[SchedulerAction]>([])

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        queue.withLock { $0.append(action) }
        return nil
    }
}

/// Runs what the rule's own thread schedules; a call from any other thread waits until the
/// test releases it.
private final class BlocksProducers: Scheduler, Sendable {
    /// Which thread's calls go through.
    enum Passing {
        /// A thread named as the runner names a rule's thread.
        case ruleThread
        /// The thread that called first (threads a rule's thread starts inherit its name).
        case firstCaller
    }

    let name = "blocks-producers"
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial] }
    var now: SchedulerTime { queue.now }
    private let queue = QueueScheduler(name: "blocks-producers")
    private let gate = DispatchSemaphore(value: 0)
    private let released = Atomic<Bool>(false)
    private let passing: Passing
    private let firstCaller = Atomic<UInt>(0)

    init(passing: Passing = .ruleThread) { self.passing = passing }

    private var callerPasses: Bool {
        switch passing {
        case .ruleThread: return Thread.current.name?.hasPrefix("rule ") == true
        case .firstCaller:
            let current = UInt(bitPattern: Int(bitPattern: pthread_self()))
            let (claimed, first) = firstCaller.compareExchange(expected: 0, desired: current, ordering: .relaxed)
            return claimed || first == current
        }
    }

    @inline(never) func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if !callerPasses, !released.load(ordering: .acquiring) {
            gate.wait()
            gate.signal()
        }
        return queue.schedule(action)
    }

    /// Lets every waiting call, and every later one, through.
    func release() {
        released.store(true, ordering: .releasing)
        gate.signal()
    }
}

/// A continuous clock whose sleep spins on its core instead of returning for a deadline
/// already reached, until `stop()` lets it go. It spins on an atomic alone: a sampled stack
/// caught inside a call it made (the clock's own `now`, in the vDSO) could not be unwound to it.
private final class SpinsOnDueSleep: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    private let base = ContinuousClock()
    private let stopped = Atomic<Bool>(false)

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    @inline(never) func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        while !stopped.load(ordering: .relaxed) {}
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
