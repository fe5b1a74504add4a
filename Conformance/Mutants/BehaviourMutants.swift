import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Claims to track the current scheduler but runs actions raw.
final class CurrentNotSetMutant: MutantBase, @unchecked Sendable {
    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        action()
    }
}

/// ReactiveCocoa's gap: repeating actions run raw, without setting the current scheduler.
final class RepeatingWithoutCurrentMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration, _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        makeTimer(deadline: deadline, spec: try RepeatSpec(interval: interval, leeway: leeway), action)
    }
}

/// Fires every timer at half its delay.
final class EarlyTimersMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        let now = self.now
        let early = deadline > now ? SchedulerTime.zero.advancedSaturating(by: (now.nanoseconds + deadline.nanoseconds) / 2) : deadline
        return try super.schedule(at: early, action)
    }
}

/// Converts intervals with wrapping arithmetic instead of refusing what overflows.
final class OverflowingIntervalsMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration, _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let wrap = { (duration: Duration) in max(1, duration.components.seconds &* 1_000_000_000) }
        let spec = try RepeatSpec(interval: .nanoseconds(wrap(interval)), leeway: .nanoseconds(wrap(leeway) - 1))
        return makeTimer(deadline: deadline, spec: spec) { CurrentScheduler.run(as: self, action) }
    }
}

/// A synchronous scheduler whose recursion recurses on the stack (no loop unrolling).
final class StackRecursionMutant: Scheduler {
    let name = "stack-recursion"
    var capabilities: SchedulerCapabilities { [.synchronous] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        action()
        return nil
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        @Sendable func run() {
            guard !disposable.isDisposed else { return }
            block { run() }
        }
        run()
        return disposable
    }
}

/// Recursion that remembers only whether `reschedule` was called, not how often.
final class LossyRescheduleMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        @Sendable func run() {
            guard !disposable.isDisposed else { return }
            let again = Atomic<Bool>(false)
            block { again.store(true, ordering: .relaxed) }
            if again.load(ordering: .relaxed) { self.schedule(run) }
        }
        schedule(run)
        return disposable
    }
}

/// Recursion whose handle does not stop it.
final class RecursionIgnoresDisposalMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        @Sendable func run() { block { self.schedule(run) } }
        schedule(run)
        return BooleanDisposable()
    }
}

/// Claims to be synchronous but defers to a queue.
final class DeferringImmediateMutant: MutantBase, @unchecked Sendable {
    init() { super.init("deferring-immediate", claims: [.synchronous]) }
}

/// A subscription scheduler that always goes to the background.
final class AlwaysAsyncSubscriptionMutant: MutantBase, @unchecked Sendable {
    init() { super.init("always-async-subscription", claims: [.subscription, .timers, .repeating]) }
}

/// A trampoline that runs nested actions at once, re-entrantly.
final class EagerTrampolineMutant: Scheduler {
    let name = "eager-trampoline"
    var capabilities: SchedulerCapabilities { [.trampoline, .tracksCurrent] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        CurrentScheduler.run(as: self, action)
        return BooleanDisposable()
    }
}

/// A trampoline whose queue is shared by every thread instead of being per thread.
final class SharedTrampolineMutant: Scheduler {
    private struct State {
        var running = false
        var queue: [SchedulerAction] = []
    }

    let name = "shared-trampoline"
    var capabilities: SchedulerCapabilities { [.trampoline, .tracksCurrent] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }
    private let state = Mutex(State())

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let enqueued = state.withLock { state in
            guard state.running else {
                state.running = true
                return false
            }
            state.queue.append(action)
            return true
        }
        guard !enqueued else { return BooleanDisposable() }
        CurrentScheduler.run(as: self) {
            action()
            while let next = state.withLock({ state -> SchedulerAction? in
                guard !state.queue.isEmpty else {
                    state.running = false
                    return nil
                }
                return state.queue.removeFirst()
            }) {
                next()
            }
        }
        return nil
    }
}

/// Blocks forever when asked for a repeating timer: the watchdog must report a timeout.
final class HangingMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration, _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        DispatchSemaphore(value: 0).wait()
        return BooleanDisposable()
    }
}

/// Traps when asked for a delayed action: the supervisor must report an error and go on.
final class CrashingMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        fatalError("crashing mutant: schedule(at:) traps on purpose")
    }
}

extension SchedulerTime {
    /// `nanoseconds` after the origin, saturating at the latest representable time.
    func advancedSaturating(by nanoseconds: UInt64) -> SchedulerTime {
        (try? SchedulerTime(nanoseconds: self.nanoseconds &+ nanoseconds)) ?? .distantFuture
    }
}
