import Dispatch

/// A serial scheduler on a private GCD queue that targets another queue.
///
/// Actions run one at a time in FIFO order, even when the target queue is concurrent,
/// each as the current scheduler, on whatever thread the target provides. Disposing an
/// action's handle before it starts prevents it from starting; a running action is not
/// interrupted. Delayed and repeating actions use Dispatch's monotonic clock, and the
/// current scheduler is set inside repeating actions too. Pending actions keep the
/// scheduler alive until they have run or their deadline has passed.
public final class QueueScheduler: DispatchBackedScheduler {
    /// How urgently the target queue runs work; mapped to a quality of service.
    public enum Priority: String, Sendable, CaseIterable {
        case high, `default`, low, background

        var qos: DispatchQoS.QoSClass {
            switch self {
            case .high: .userInitiated
            case .default: .default
            case .low: .utility
            case .background: .background
            }
        }
    }

    public let name: String
    public var capabilities: SchedulerCapabilities {
        [.asynchronous, .serial, .cancellation, .timers, .repeating, .tracksCurrent]
    }
    /// The private serial queue the actions run on.
    public let queue: DispatchQueue
    /// The queue the private queue targets: where its work is run.
    public let targetQueue: DispatchQueue
    let backend: DispatchBackend

    /// A new scheduler targeting the global queue of `priority`; a new one each call.
    public convenience init(priority: Priority = .default, name: String? = nil) {
        self.init(name: name ?? "QueueScheduler(\(priority.rawValue))", targetQueue: .global(qos: priority.qos))
    }

    /// A new scheduler whose private serial queue targets `targetQueue`.
    public init(name: String, targetQueue: DispatchQueue) {
        self.name = name
        self.queue = DispatchQueue(label: name, target: targetQueue)
        self.targetQueue = targetQueue
        self.backend = DispatchBackend(queue: queue, batched: true)
    }

}
