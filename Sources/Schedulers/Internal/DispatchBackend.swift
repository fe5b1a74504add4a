import Dispatch

/// The GCD plumbing shared by every queue-backed scheduler: one way to enqueue, delay and
/// repeat, so the queue, concurrent and main-thread schedulers differ only in their queue.
struct DispatchBackend: Sendable {
    let queue: DispatchQueue
    /// Batches the queue's plain actions and jobs: for a serial queue whose order among its
    /// work the scheduler need not keep (its private queue, or the main queue, where it
    /// promises an order among its own actions only). A concurrent queue has none.
    let drain: SerialDrain?

    /// Plumbing for `queue`; `batched` only for a serial queue (see `drain`).
    init(queue: DispatchQueue, batched: Bool = false) {
        self.queue = queue
        self.drain = batched ? SerialDrain(queue: queue) : nil
    }

    /// Dispatch's monotonic uptime clock: deadlines never move with the wall clock.
    static var now: SchedulerTime {
        SchedulerTime(uncheckedNanoseconds: min(DispatchTime.now().uptimeNanoseconds, UInt64(Int64.max)))
    }

    @inline(__always)
    func schedule(_ action: @escaping SchedulerAction, as owner: any Scheduler) -> any Disposable {
        let item = ScheduledAction(action, scheduler: owner)
        if let drain {
            drain.enqueue(.action(item))
        } else {
            // Capturing the one item keeps the closure free of a context allocation.
            queue.async { item.run() }
        }
        return item
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction, as owner: any Scheduler)
        -> any Disposable
    {
        let item = ScheduledAction(action, scheduler: owner)
        queue.asyncAfter(deadline: Self.dispatchTime(deadline)) { item.run() }
        return item
    }

    func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction,
        as owner: any Scheduler
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        // GCD sources are thread-safe objects; Dispatch just does not mark them Sendable.
        nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
        let repeating = RepeatingAction(action, onDispose: { timer.cancel() })
        timer.schedule(
            deadline: Self.dispatchTime(deadline),
            repeating: .nanoseconds(Int(spec.intervalNanoseconds)),
            leeway: .nanoseconds(Int(spec.leewayNanoseconds))
        )
        // The handler keeps `repeating` (and the scheduler) alive and `repeating` keeps the
        // timer, so the timer survives its caller dropping the handle; cancelling on disposal
        // breaks the cycle.
        timer.setEventHandler { repeating.tick(as: owner) }
        timer.resume()
        return repeating
    }

    private static func dispatchTime(_ deadline: SchedulerTime) -> DispatchTime {
        // Uptime 0 would mean DISPATCH_TIME_NOW's raw value; 1ns is the same moment in practice.
        DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))
    }
}

/// The schedulers that are a `DispatchBackend` and nothing more: they share one
/// implementation of the clock and the three ways to schedule.
protocol DispatchBackedScheduler: Scheduler {
    var backend: DispatchBackend { get }
}

extension DispatchBackedScheduler {
    public var now: SchedulerTime { DispatchBackend.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        backend.schedule(action, as: self)
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        backend.schedule(at: deadline, action, as: self)
    }

    public func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try backend.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action, as: self)
    }
}
