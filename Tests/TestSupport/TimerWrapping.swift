import Schedulers

/// A test's scheduler that changes only how another one repeats: its clock, one-shot actions
/// and timers are the wrapped scheduler's own, so a rule's verdict on it is about the
/// repeating timer the test built and nothing else.
public protocol TimerWrapping: Scheduler {
    associatedtype Wrapped: Scheduler
    /// The scheduler every entry point but the repeating one goes to.
    var wrapped: Wrapped { get }
}

extension TimerWrapping {
    /// The wrapped scheduler's name.
    public var name: String { wrapped.name }

    /// What the wrapped scheduler claims.
    public var capabilities: SchedulerCapabilities { wrapped.capabilities }

    /// The wrapped scheduler's clock.
    public var now: SchedulerTime { wrapped.now }

    /// Schedules on the wrapped scheduler.
    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? { wrapped.schedule(action) }

    /// Schedules the one-shot timer on the wrapped scheduler.
    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? { try wrapped.schedule(at: deadline, action) }
}
