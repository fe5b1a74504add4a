/// The scheduler whose action is running on this thread, and the one way to set it.
///
/// The value lives in thread-local storage. ``run(as:_:)`` remembers the previous value,
/// sets the scheduler, runs the body and always restores the previous value, so it holds
/// across nesting, across hops between schedulers, and per thread on concurrent queues.
public enum CurrentScheduler {
    /// The scheduler running an action on this thread. On a thread that no scheduler is
    /// driving it is `nil`, except on the main thread, where (as in ReactiveCocoa) it is
    /// ``MainThreadScheduler/shared``.
    public static var value: (any Scheduler)? {
        let state = ThreadState.local
        if let current = state.current { return current }
        return state.isMainThread ? MainThreadScheduler.shared : nil
    }

    /// The scheduler explicitly set on this thread, without the main-thread default.
    public static var explicitValue: (any Scheduler)? {
        ThreadState.local.current
    }

    /// Runs `body` with `scheduler` as the current scheduler of this thread, then restores
    /// the previous value (or none).
    @inline(__always)
    public static func run<R, E: Error>(as scheduler: any Scheduler, _ body: () throws(E) -> R) throws(E) -> R {
        let state = ThreadState.local
        let previous = state.current
        state.current = scheduler
        defer { state.current = previous }
        return try body()
    }
}
