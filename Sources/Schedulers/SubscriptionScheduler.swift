/// The shared scheduler for subscribing: inline when this thread already has a current
/// scheduler, otherwise asynchronous on a private background ``QueueScheduler``.
///
/// Inline runs return `nil` and do not change ``CurrentScheduler``; background runs have
/// the background scheduler as current. Recursion goes to the current scheduler, or to the
/// background one when there is none; timers and repeating actions likewise, except that
/// a current scheduler that cannot run them (the trampoline) hands them to the background.
public final class SubscriptionScheduler: Scheduler {
    /// The one subscription scheduler.
    public static let shared = SubscriptionScheduler()

    public let name = "SubscriptionScheduler"
    public var capabilities: SchedulerCapabilities { [.subscription, .timers, .repeating] }

    /// Where work goes when the calling thread has no current scheduler.
    public let background = QueueScheduler(priority: .default, name: "SubscriptionScheduler.background")

    private init() {}

    /// The clock of the scheduler timers go to, so a deadline computed from `now` means
    /// the same thing to the scheduler that runs it (virtual time inside a test scheduler).
    public var now: SchedulerTime { target(for: .timers).now }

    /// Where timed work goes: the current scheduler when it can do it, else the background one.
    private func target(for capability: SchedulerCapabilities) -> any Scheduler {
        guard let current = CurrentScheduler.value, current.capabilities.contains(capability) else { return background }
        return current
    }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value != nil else { return background.schedule(action) }
        action()
        return nil
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        try target(for: .timers).schedule(at: deadline, action)
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
        try target(for: .repeating).schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }
}
