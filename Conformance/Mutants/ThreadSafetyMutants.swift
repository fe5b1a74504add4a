import Dispatch
import Foundation
import SchedulerConformance
import Schedulers
import Synchronization

/// On release, "flushes" whatever it still holds by running it on a thread of its own, while
/// its own queue, which does not depend on the scheduler, goes on running the same work.
final class RunsPendingTwiceOnReleaseMutant: MutantBase, @unchecked Sendable {
    private final class Pending: Sendable {
        let actions = Lock<[Int: SchedulerAction]>([:])
        let next = Atomic<Int>(0)
    }

    private let pending = Pending()

    init() {
        super.init("runs-pending-twice-on-release")
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        enqueue(action, at: nil)
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        enqueue(action, at: deadline)
    }

    /// Queues work that refers to the pending list, not to the scheduler, so the scheduler
    /// can be freed while its work waits.
    private func enqueue(_ action: @escaping SchedulerAction, at deadline: SchedulerTime?) -> any Disposable {
        let pending = self.pending
        let id = pending.next.wrappingAdd(1, ordering: .relaxed).oldValue
        pending.actions.withLock { $0[id] = action }
        let disposable = BooleanDisposable()
        let work: @Sendable () -> Void = {
            guard !disposable.isDisposed else { return }
            action()
            _ = pending.actions.withLock { $0.removeValue(forKey: id) }
        }
        if let deadline {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)), execute: work)
        } else {
            queue.async(execute: work)
        }
        return disposable
    }

    deinit {
        let leftovers = pending.actions.withLock { Array($0.values) }
        Thread { for action in leftovers { action() } }.start()
    }
}
