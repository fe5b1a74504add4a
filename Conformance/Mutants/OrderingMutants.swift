import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Runs queued actions last-in, first-out.
final class LIFOMutant: MutantBase, @unchecked Sendable {
    private let stack = Mutex<[SchedulerAction]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        stack.withLock { $0.append(action) }
        queue.async {
            guard let next = self.stack.withLock({ $0.popLast() }) else { return }
            CurrentScheduler.run(as: self, next)
        }
        return BooleanDisposable()
    }
}

/// Claims to be serial but runs every action on a thread of its own, so actions overlap
/// even when Dispatch's thread pool is saturated (as it is while tests run in parallel).
final class OverlappingMutant: MutantBase, @unchecked Sendable {
    init() { super.init("overlapping") }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        Thread { self.run(action, unless: disposable) }.start()
        return disposable
    }
}

/// Claims to be asynchronous but runs inline when called from its own actions.
final class ReentrantMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value === self else { return super.schedule(action) }
        action()
        return nil
    }
}

/// Loses one action in every 97 once several threads schedule at once.
final class LossyMutant: MutantBase, @unchecked Sendable {
    private let counter = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if counter.wrappingAdd(1, ordering: .relaxed).newValue % 97 == 0 { return BooleanDisposable() }
        return super.schedule(action)
    }
}

/// Claims concurrency but runs everything on one serial queue.
final class SerialClaimingConcurrencyMutant: MutantBase, @unchecked Sendable {
    init() {
        super.init("serial-claiming-concurrency", claims: [.asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent])
    }
}
