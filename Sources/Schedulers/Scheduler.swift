/// A unit of work handed to a scheduler.
public typealias SchedulerAction = @Sendable () -> Void

/// Decides when and where units of work run.
///
/// A scheduler is not a thread: a serial scheduler promises one-at-a-time, in-order
/// execution, but successive actions may run on different threads of a pool.
///
/// Only ``schedule(_:)``, ``name``, ``capabilities`` and ``now`` must be written by a
/// conforming type; timers, repeating actions and recursion have defaults (the first two
/// refuse with a typed error, recursion is built on ``schedule(_:)``). A conformer must
/// declare in ``capabilities`` exactly what it promises, because the conformance suite
/// checks a scheduler for what it claims and nothing more.
public protocol Scheduler: AnyObject, Sendable {
    /// A human-readable name, used in reports and failure messages.
    var name: String { get }

    /// What this scheduler promises; see ``SchedulerCapabilities``.
    var capabilities: SchedulerCapabilities { get }

    /// The scheduler's own clock. Real-time schedulers read a monotonic clock, so a change
    /// of the wall clock never stalls a timer; virtual-time schedulers return virtual time.
    var now: SchedulerTime { get }

    /// Runs `action` as soon as possible.
    ///
    /// - Returns: A handle whose `dispose()` prevents `action` from starting if it has not
    ///   started yet; an action already running is not interrupted. `nil` when nothing can be
    ///   cancelled (the action already ran, or the scheduler cannot cancel).
    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)?

    /// Runs `action` at `deadline` on this scheduler's clock, never before it.
    ///
    /// A deadline in the past runs promptly.
    /// - Throws: ``SchedulerError/timersUnsupported(scheduler:)`` when the scheduler has no
    ///   timers. The scheduler keeps working after refusing.
    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )?

    /// Runs `action` first at `deadline`, then every `interval` until the returned handle is
    /// disposed. Dropping the handle without disposing it does not stop the timer.
    ///
    /// - Parameters:
    ///   - deadline: when the first tick runs, on this scheduler's clock.
    ///   - interval: the time between two ticks' deadlines.
    ///   - leeway: how late the system may fire to coalesce wake-ups.
    ///   - action: what each tick runs.
    /// - Throws: ``SchedulerError`` when the scheduler cannot repeat, `interval <= 0`,
    ///   `leeway < 0`, or a value overflows a nanosecond count. The scheduler keeps working.
    func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable

    /// Runs `block` once, and once more for every call of the `reschedule` function it
    /// receives; the algorithm and its guarantees are described on
    /// ``RecursiveScheduling``.
    ///
    /// - Returns: A handle that, when disposed, prevents every further run.
    @discardableResult
    func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)?
}

extension Scheduler {
    /// Refuses: this scheduler has no timers.
    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        throw .timersUnsupported(scheduler: name)
    }

    /// Refuses: this scheduler cannot repeat.
    public func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        throw .repeatingUnsupported(scheduler: name)
    }

    /// Builds recursion on ``Scheduler/schedule(_:)`` with the algorithm of ``RecursiveScheduling``.
    @discardableResult
    public func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        RecursiveScheduling.start(on: self, block)
    }

    /// Runs `action` once `delay` has passed on this scheduler's clock (`schedule(at: now + delay)`).
    ///
    /// A negative delay runs promptly.
    /// - Throws: ``SchedulerError`` as ``Scheduler/schedule(at:_:)`` does, or when `now + delay`
    ///   overflows a nanosecond count.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        try schedule(at: now.advanced(by: delay), action)
    }

    /// Repeats `action` every `interval`, starting one interval from now.
    ///
    /// - Throws: as ``Scheduler/schedule(at:repeatingEvery:leeway:_:)``.
    public func schedule(
        repeatingEvery interval: Duration,
        leeway: Duration = .zero,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        // A negative interval moves `now` back to at most the origin, which the call below
        // refuses with the interval's own error.
        try schedule(at: now.advanced(by: interval), repeatingEvery: interval, leeway: leeway, action)
    }
}
