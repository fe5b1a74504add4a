/// A scheduler whose time passes only when it is advanced, so tests are deterministic.
///
/// Implementations promise: actions run in order of (time, order of scheduling), so
/// actions due at the same time run FIFO; ``Scheduler/now`` equals an action's time while
/// it runs; actions scheduled during an advance, due at or before its target, run in the
/// same advance; time never moves backwards. A scheduler that may be driven from several
/// threads runs each `step()` and `advance(to:)` whole, one after another (``TestScheduler``
/// does); one that may not says so, and its adapter declares it to the conformance suite.
/// The defaults of `advance(by:)` and `stepAll()` are several drives (a read of `now` and an
/// advance; one step after another); a scheduler that keeps drives apart may make each one
/// drive, as ``TestScheduler`` does.
public protocol VirtualTimeScheduler: Scheduler {
    /// Runs the earliest pending action, moving time to it; a scheduler that does not claim
    /// ``SchedulerCapabilities/singleStep`` may instead run everything due at that instant.
    /// - Returns: `false` when nothing was pending (time does not move).
    @discardableResult
    func step() -> Bool

    /// Runs every action due at or before `target` (inclusive), in order, then sets the
    /// time to `target`. A target earlier than now runs nothing and keeps the time.
    func advance(to target: SchedulerTime)

    /// Advances the time by `duration` from `now`; see ``advance(to:)``.
    /// - Throws: ``SchedulerError/overflow(_:)`` when the target time does not fit.
    func advance(by duration: Duration) throws(SchedulerError)

    /// Runs actions until none is pending, repeating ones included: dispose those first.
    /// - Returns: how many ran.
    @discardableResult
    func stepAll() -> Int
}

extension VirtualTimeScheduler {
    /// Runs up to `count` actions; returns how many ran.
    @discardableResult
    public func step(_ count: Int) -> Int {
        var ran = 0
        while ran < count, step() { ran += 1 }
        return ran
    }

    /// Runs actions until none is pending, repeating ones included: dispose those first.
    /// - Returns: how many ran.
    @discardableResult
    public func stepAll() -> Int {
        var ran = 0
        while step() { ran += 1 }
        return ran
    }

    /// Advances the time by `duration`; see ``advance(to:)``.
    /// - Throws: ``SchedulerError/overflow(_:)`` when the target time does not fit.
    public func advance(by duration: Duration) throws(SchedulerError) {
        advance(to: try now.advanced(by: duration))
    }
}
