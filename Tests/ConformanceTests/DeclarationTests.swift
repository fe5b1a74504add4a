import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// A serial pool that shuts down when its last reference goes: what is still pending is
/// cancelled, not run. Correct, and the other choice from a Dispatch queue's.
final class ShuttingDownPool: Scheduler {
    let name = "shutting-down-pool"
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .cancellation, .tracksCurrent] }
    private let queue = DispatchQueue(label: "shutting-down-pool")

    var now: SchedulerTime { (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = BooleanDisposable()
        // Pending work does not keep the pool: once it is gone, its work is cancelled.
        queue.async { [weak self] in
            guard let self, !handle.isDisposed else { return }
            CurrentScheduler.run(as: self, action)
        }
        return handle
    }
}

/// THR-2 holds a subject to the policy it declares for work pending at release, and a
/// failure names the declaration; undeclared, either policy passes.
@Suite struct PendingWorkDeclarationTests {
    private static func thr2(_ subject: ConformanceSubject) async -> RuleResult {
        await OwnThread.run(.rules) {
            ConformanceRunner.run(subject, rules: [RuleCatalogue.rule(.thr2)], timing: MutantKillTests.timing)[0]
        }
    }

    private static let pool = ConformanceSubject(name: "shutting-down-pool") { ShuttingDownPool() }
    private static let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }

    @Test func aPoolThatDropsItsWorkPassesWhenItSaysSo() async {
        #expect(await Self.thr2(Self.pool).status == .passed)
        #expect(await Self.thr2(Self.pool.declaring(.pendingWorkOnRelease(.dropped))).status == .passed)
        let wrong = await Self.thr2(Self.pool.declaring(.pendingWorkOnRelease(.runs)))
        #expect(wrong.status == .failed)
        #expect(wrong.message?.contains("declares `.pendingWorkOnRelease(.runs)`") == true, "\(wrong.message ?? "")")
    }

    @Test func aQueueThatRunsItsWorkPassesWhenItSaysSo() async {
        #expect(await Self.thr2(Self.queue.declaring(.pendingWorkOnRelease(.runs))).status == .passed)
        let wrong = await Self.thr2(Self.queue.declaring(.pendingWorkOnRelease(.dropped)))
        #expect(wrong.status == .failed)
        #expect(wrong.message?.contains("declares `.pendingWorkOnRelease(.dropped)`") == true, "\(wrong.message ?? "")")
    }
}

/// A manual clock that parks `sleep(until: now)` until its next advance (swift-clocks'
/// `TestClock`) passes CLK-4 and LIN-3 once it says so; undeclared, CLK-4 names the
/// declaration; and a clock that returns at once fails the declaration it did not earn.
@Suite struct DueSleepDeclarationTests {
    private static let parking = Mutants.named("manual-clock-due-waits-off-its-executor")!.subject

    @Test func aClockThatParksADueSleepPassesWhenItSaysSo() async throws {
        let undeclared = try #require(await judge(Self.parking, .clk4)[.clk4])
        #expect(undeclared.status == .failed)
        #expect(
            undeclared.message?.contains(".dueSleep(.parksUntilNextAdvance)") == true, "\(undeclared.message ?? "")")
        let declared = await judge(Self.parking.declaring(.dueSleep(.parksUntilNextAdvance)), .clk4, .lin3)
        for (rule, result) in declared { #expect(passesOrLacksEvidence(result), "\(rule): \(result.message ?? "")") }
    }

    @Test func aClockThatReturnsAtOnceFailsTheParkingDeclaration() async throws {
        let clock = ConformanceSubject(name: "virtual-clock-off-its-executor") {
            ClockUnderTest(
                TestScheduler().clock, blockingAdvance: { $0.advance(by: $1) }, blockingRun: { $0.run() },
                sleepersRunOn: nil)
        }
        #expect(try #require(await judge(clock, .clk4)[.clk4]).status == .passed)
        let wrong = try #require(await judge(clock.declaring(.dueSleep(.parksUntilNextAdvance)), .clk4)[.clk4])
        #expect(wrong.status == .failed)
        #expect(
            wrong.message?.contains("before any advance, though the subject declares") == true, "\(wrong.message ?? "")"
        )
    }
}

/// A timer that repeats with a fixed delay (SwiftNIO's `scheduleRepeatedTask`) passes TIM-12
/// once it says so; undeclared, the failure names the declaration; declared, a timer on the
/// grid and one that drifts by something else both fail it.
@Suite struct RepeatPolicyDeclarationTests {
    private static let fixedDelay = Mutants.named("rearms-from-action-end")!.subject

    @Test func aFixedDelayTimerPassesWhenItSaysSo() async throws {
        let undeclared = try #require(await judge(Self.fixedDelay, .tim12)[.tim12])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".repeatPolicy(.fixedDelay)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(Self.fixedDelay.declaring(.repeatPolicy(.fixedDelay)), .tim12)[.tim12])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
    }

    /// The hint survives a stall: one period a stall stretched past what the suite's timers
    /// saw must not make it ask every period to be a fixed delay's.
    @Test func aFixedDelayTimerStalledOncePointsToTheDeclaration() async throws {
        let stalled = ConformanceSubject(name: "fixed-delay-stalled-once") { HandArmedTimers.fixedDelayStalledOnce() }
        let undeclared = try #require(await judge(stalled, .tim12)[.tim12])
        #expect(undeclared.status == .failed)
        // The hint needs two periods within the allowance of a fixed delay's; under the
        // sanitizer, ten times slower beside its other tests, the hand-armed timer's own
        // thread can stretch every one of them, far more than the suite's timers.
        if !ThreadSanitizerBuild.isEnabled {
            #expect(undeclared.message?.contains(".repeatPolicy(.fixedDelay)") == true, "\(undeclared.message ?? "")")
        }
    }

    /// A failure whose ticks were too few to tell a fixed delay (a tick held back past the
    /// grid's end) is measured again, for its cause: still a failure, now with the hint.
    @Test func aFailureTooShortToTellItsCauseIsMeasuredAgainForIt() async throws {
        // The first timer it arms, not the first scheduler: the rule may make others.
        let starts = Box<[UInt64]>([])
        let subject = ConformanceSubject(name: "fixed-delay-held-past-the-grid-once") {
            HandArmedTimers("fixed-delay-held-past-the-grid-once") { start, tick, returned, step in
                let first = starts.update {
                    if !$0.contains(start) { $0.append(start) }
                    return $0.first == start
                }
                return returned + step + (first && tick == 0 ? 300_000_000 : 0)
            }
        }
        let result = try #require(await judge(subject, .tim12)[.tim12])
        #expect(result.status == .failed)
        #expect(starts.value.count >= 2, "measured once")
        #expect(result.message?.contains(".repeatPolicy(.fixedDelay)") == true, "\(result.message ?? "")")
    }

    @Test func timersOffTheFixedDelayFailTheDeclaration() async throws {
        let grid = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }
        let drifts = Mutants.named("repeating-drifts")!.subject
        for subject in [grid, drifts] {
            let result = try #require(await judge(subject.declaring(.repeatPolicy(.fixedDelay)), .tim12)[.tim12])
            #expect(result.status == .failed, "\(subject.name): \(result.message ?? "")")
            #expect(result.message?.contains("the fixed delay the subject declares") == true, "\(result.message ?? "")")
        }
    }
}

/// A timer that runs every tick a stall made it miss (tokio's burst) passes TIM-16 once it
/// says so; undeclared, the failure names the declaration; declared, a timer that merges
/// them (a Dispatch timer source) fails it.
@Suite struct MissedTicksDeclarationTests {
    private static let burst = Mutants.named("repeating-bursts-missed-ticks")!.subject

    @Test func aBurstingTimerPassesWhenItSaysSo() async throws {
        let undeclared = try #require(await judge(Self.burst, .tim16)[.tim16])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".missedTicks(.burst)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(Self.burst.declaring(.missedTicks(.burst)), .tim16)[.tim16])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
    }

    @Test func aTimerThatDropsMissedTicksPassesWhenItSaysSo() async throws {
        let skips = ConformanceSubject(name: "skips-missed-ticks") { HandArmedTimers.skipsMissedTicks() }
        // Once: dropping is never taken for merging (`MissedTicksVerdictTests`), so each run
        // is inconclusive, and more runs would wait out `judge`'s minute for a verdict.
        let undeclared = try #require(await judgeOnce(skips, .tim16)[.tim16])
        #expect(undeclared.status == .inconclusive, "dropping cannot be told from a late merged run")
        #expect(undeclared.message?.contains(".missedTicks(.skipped)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(skips.declaring(.missedTicks(.skipped)), .tim16)[.tim16])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
        let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }
        let wrong = try #require(await judge(queue.declaring(.missedTicks(.skipped)), .tim16)[.tim16])
        #expect(wrong.status == .failed, "\(wrong.message ?? "")")
    }

    @Test func aMergingTimerFailsTheBurstDeclaration() async throws {
        let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }
        #expect(try #require(await judge(queue, .tim16)[.tim16]).status == .passed)
        let wrong = try #require(await judge(queue.declaring(.missedTicks(.burst)), .tim16)[.tim16])
        #expect(wrong.status == .failed, "\(wrong.message ?? "")")
        #expect(
            wrong.message?.contains("it merged the missed ticks though it declares") == true, "\(wrong.message ?? "")")
    }
}

/// A manual clock with no `run()` gives its adapter nil for it, and CLK-9, CLK-10 and LIN-3
/// judge its advances instead of a run the adapter would have had to make up.
@Suite struct ClockWithoutRunTests {
    @Test func aClockWithoutRunIsJudgedByItsAdvances() async {
        let subject = ConformanceSubject(name: "virtual-clock-without-run") {
            let scheduler = TestScheduler()
            return ClockUnderTest(
                scheduler.clock, blockingAdvance: { $0.advance(by: $1) }, blockingRun: nil,
                sleepersRunOn: scheduler.executor)
        }
        #expect(!subject.makeClock().hasRun)
        for (rule, result) in await judge(subject, .clk9, .clk10, .lin3) {
            #expect(passesOrLacksEvidence(result), "\(rule): \(result.message ?? "")")
        }
    }
}
