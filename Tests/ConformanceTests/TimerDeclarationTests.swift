import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// A queue scheduler that reads a zero interval as "as fast as possible": correct, and the
/// other choice from the suite's.
final class ZeroIsFastestScheduler: Scheduler {
    private let base = QueueScheduler(name: "zero-is-fastest")
    /// Where the repeating handles it hands out are kept, when a test asks.
    private let handedOut: HandedOut?

    init(handedOut: HandedOut? = nil) { self.handedOut = handedOut }
    var name: String { base.name }
    var capabilities: SchedulerCapabilities { base.capabilities }
    var now: SchedulerTime { base.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? { base.schedule(action) }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        try base.schedule(at: deadline, action)
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let handle = try base.schedule(
            at: deadline, repeatingEvery: interval == .zero ? .nanoseconds(1) : interval, leeway: leeway, action)
        handedOut?.keep(handle)
        return handle
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        base.scheduleRecursive(block)
    }
}

/// The repeating handles a scheduler handed out.
final class HandedOut: Sendable {
    private let handles = Lock<[any Disposable]>([])

    func keep(_ handle: any Disposable) { handles.withLock { $0.append(handle) } }

    /// How many were handed out, and how many of them are not disposed.
    var counts: (all: Int, undisposed: Int) {
        handles.withLock { handles in (handles.count, handles.filter { !$0.isDisposed }.count) }
    }
}

/// TIM-7 holds a scheduler to what it declares a zero interval to be.
@Suite struct ZeroIntervalDeclarationTests {
    /// A subject the rule fails still has every timer it accepted disposed: before, this one's
    /// zero-interval timer ticked about 25,000 times a second for the rest of the test process
    /// (found with perf: most of `make test`'s system time was Dispatch re-arming it).
    @Test func aFailedRuleLeavesNoTimerOfItsSubjectTicking() async throws {
        let handedOut = HandedOut()
        let subject = ConformanceSubject(name: "zero-is-fastest") { ZeroIsFastestScheduler(handedOut: handedOut) }
        let undeclared = try #require(await judge(subject, .tim7)[.tim7])
        #expect(undeclared.status == .failed)
        let (all, undisposed) = handedOut.counts
        #expect(all >= 1, "the zero interval was refused, so nothing was checked")
        #expect(undisposed == 0, "\(undisposed) of \(all) repeating timers were left running after the rule")
    }

    @Test func aSchedulerThatRepeatsAsFastAsPossiblePassesWhenItSaysSo() async throws {
        let subject = ConformanceSubject(name: "zero-is-fastest") { ZeroIsFastestScheduler() }
        let undeclared = try #require(await judge(subject, .tim7)[.tim7])
        #expect(undeclared.status == .failed)
        #expect(undeclared.message?.contains(".zeroInterval(.asFastAsPossible)") == true, "\(undeclared.message ?? "")")
        let declared = try #require(await judge(subject.declaring(.zeroInterval(.asFastAsPossible)), .tim7)[.tim7])
        #expect(declared.status == .passed, "\(declared.message ?? "")")
    }

    @Test func aSchedulerThatRefusesZeroFailsTheDeclaration() async throws {
        let queue = ConformanceSubject(name: "queue") { QueueScheduler(name: "queue") }
        let wrong = try #require(await judge(queue.declaring(.zeroInterval(.asFastAsPossible)), .tim7)[.tim7])
        #expect(wrong.status == .failed, "\(wrong.message ?? "")")
    }
}

/// A serial queue whose repeating timer arms each next tick where `next` says, from the
/// timer's start, the tick just run (from 0), the time its action returned and the interval.
final class HandArmedTimers: TimerWrapping {
    typealias Next = @Sendable (_ start: UInt64, _ tick: Int, _ returned: UInt64, _ step: UInt64) -> UInt64
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .timers, .repeating, .cancellation] }
    let wrapped: QueueScheduler
    private let next: Next

    init(_ name: String, next: @escaping Next) {
        self.wrapped = QueueScheduler(name: name)
        self.next = next
    }

    /// Foundation's `Timer`: each tick at the first grid point after the last action
    /// returned, so the points a long action covered never run.
    static func skipsMissedTicks() -> HandArmedTimers {
        HandArmedTimers("skips-missed-ticks") { start, _, returned, step in
            start + (returned >= start ? (returned - start) / step + 1 : 0) * step
        }
    }

    /// A fixed delay, each tick an interval after the action before it returned, except that
    /// the third period is 30 ms longer, as if its thread had been preempted there while the
    /// suite's timers kept time.
    static func fixedDelayStalledOnce() -> HandArmedTimers {
        HandArmedTimers("fixed-delay-stalled-once") { _, tick, returned, step in
            returned + step + (tick == 2 ? 30_000_000 : 0)
        }
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let step = UInt64(try interval.checkedNanoseconds())
        // A flag each tick reads, not a serial handle: a tick that ran and re-armed before
        // `schedule` returned here would have its successor disposed by the late assignment.
        let handle = BooleanDisposable()
        let (base, next) = (self.wrapped, self.next)
        @Sendable func arm(_ at: SchedulerTime, tick: Int) {
            _ = try? base.schedule(at: at) {
                guard !handle.isDisposed else { return }
                action()
                let following = next(deadline.nanoseconds, tick, base.now.nanoseconds, step)
                arm((try? SchedulerTime(nanoseconds: following)) ?? .distantFuture, tick: tick + 1)
            }
        }
        arm(deadline, tick: 0)
        return handle
    }
}
