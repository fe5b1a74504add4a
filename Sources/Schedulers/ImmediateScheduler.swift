/// The shared scheduler that runs every action synchronously, on the caller's thread,
/// before `schedule` returns.
///
/// It does not change ``CurrentScheduler``: an immediate action inside another scheduler's
/// action still sees that scheduler. `schedule(at:)` blocks the caller until the deadline
/// on the monotonic clock, then runs. Nothing can be cancelled, so every call returns
/// `nil`, and repeating is refused with ``SchedulerError/repeatingUnsupported(scheduler:)``.
/// Recursion is unrolled into a loop (as for every synchronous scheduler, see
/// ``RecursiveScheduling``), so its depth never grows the stack.
public final class ImmediateScheduler: Scheduler {
    /// The one immediate scheduler.
    public static let shared = ImmediateScheduler()

    public let name = "ImmediateScheduler"
    public var capabilities: SchedulerCapabilities { [.synchronous, .timers] }

    private init() {}

    public var now: SchedulerTime { DispatchBackend.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        action()
        return nil
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        ThreadState.sleep(until: deadline) { DispatchBackend.now }
        action()
        return nil
    }
}
