import Dispatch
import Schedulers

/// A plain `DispatchQueue` as a scheduler: `DispatchWorkItem` gives cancellation, `asyncAfter`
/// gives timers; Dispatch has no repeating work item and no current-queue notion here.
final class DispatchQueueSubject: Scheduler {
    let name: String
    let capabilities: SchedulerCapabilities
    private let queue: DispatchQueue

    init(name: String, concurrent: Bool) {
        self.name = name
        self.queue = DispatchQueue(label: name, attributes: concurrent ? .concurrent : [])
        self.capabilities = [.asynchronous, concurrent ? .concurrent : .serial, .cancellation, .timers]
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let item = WorkItemHandle(action)
        queue.async(execute: item.item)
        return item
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let item = WorkItemHandle(action)
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)), execute: item.item)
        return item
    }
}

/// A `DispatchWorkItem` as a disposable.
///
/// @unchecked Sendable: `DispatchWorkItem` is thread-safe (cancel and isCancelled may be
/// called from any thread) but not marked Sendable by the overlay.
final class WorkItemHandle: Disposable, @unchecked Sendable {
    let item: DispatchWorkItem

    init(_ action: @escaping SchedulerAction) { item = DispatchWorkItem(block: action) }

    func dispose() { item.cancel() }
    var isDisposed: Bool { item.isCancelled }
}

/// Dispatch's monotonic clock, the one `DispatchTime` deadlines use.
func uptime() -> SchedulerTime {
    (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture
}
