import Dispatch

/// A scheduler on a private concurrent GCD queue: actions may run at the same time.
///
/// No order is promised between actions. Each action runs as the current scheduler on
/// its own worker thread, and finishing one action never clears the value another worker
/// set. Cancellation, timers and repeating behave as on ``QueueScheduler``.
public final class ConcurrentQueueScheduler: DispatchBackedScheduler {
    public let name: String
    public var capabilities: SchedulerCapabilities {
        [.asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent]
    }
    /// The private concurrent queue the actions run on.
    public let queue: DispatchQueue
    let backend: DispatchBackend

    /// A new concurrent scheduler targeting the global queue of `priority`.
    public init(priority: QueueScheduler.Priority = .default, name: String? = nil) {
        let name = name ?? "ConcurrentQueueScheduler(\(priority.rawValue))"
        self.name = name
        self.queue = DispatchQueue(label: name, attributes: .concurrent, target: .global(qos: priority.qos))
        self.backend = DispatchBackend(queue: queue)
    }

}
