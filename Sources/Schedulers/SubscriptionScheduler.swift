/// The shared scheduler for subscribing: inline when this thread already has a current
/// scheduler, otherwise asynchronous on a private background ``QueueScheduler``.
///
/// Inline runs return `nil` and do not change ``CurrentScheduler``; background runs have
/// the background scheduler as current. Timers, repeating actions and recursion go to the
/// current scheduler, or to the background scheduler when there is none.
public final class SubscriptionScheduler: Scheduler {
    /// The one subscription scheduler.
    public static let shared = SubscriptionScheduler()

    public let name = "SubscriptionScheduler"
    public var capabilities: SchedulerCapabilities { [.subscription, .timers, .repeating] }

    /// Where work goes when the calling thread has no current scheduler.
    public let background = QueueScheduler(priority: .default, name: "SubscriptionScheduler.background")

    private init() {}

    public var now: SchedulerTime { DispatchBackend.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value != nil else { return background.schedule(action) }
        action()
        return nil
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        try (CurrentScheduler.value ?? background).schedule(at: deadline, action)
    }

    /// Recursion goes to the current scheduler, or to the background scheduler when there
    /// is none, so that running inline never turns into recursion on the stack.
    @discardableResult
    public func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        (CurrentScheduler.value ?? background).scheduleRecursive(block)
    }

    public func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try (CurrentScheduler.value ?? background).schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }
}
