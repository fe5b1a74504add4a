import Synchronization

/// The shared scheduler that runs every action synchronously, on the caller's thread,
/// before `schedule` returns.
///
/// It does not change ``CurrentScheduler``: an immediate action inside another scheduler's
/// action still sees that scheduler. `schedule(at:)` blocks the caller until the deadline
/// on the monotonic clock, then runs. Nothing can be cancelled, so every call returns
/// `nil`, and repeating is refused with ``SchedulerError/repeatingUnsupported(scheduler:)``.
/// Recursion is unrolled into a loop, so its depth never grows the stack.
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
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        ThreadState.sleep(until: deadline) { DispatchBackend.now }
        action()
        return nil
    }

    /// Runs `block` in a loop on the caller's thread, once more per `reschedule` call made
    /// during it; a `reschedule` made after the loop ended runs the loop again on the
    /// calling thread. Disposing the returned handle stops the loop before the next run.
    @discardableResult
    public func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        let loop = UnrolledRecursion(block)
        loop.reschedule()
        return loop.disposable
    }
}

/// Recursion as a counter of pending runs and a loop that drains it.
private final class UnrolledRecursion: Sendable {
    private struct State {
        var looping = false
        var pending = 0
    }

    let disposable = BooleanDisposable()
    private let block: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    private let state = Mutex(State())

    init(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.block = block
    }

    func reschedule() {
        let startLoop = state.withLock { state in
            if state.looping {
                state.pending += 1
                return false
            }
            state.looping = true
            return true
        }
        if startLoop { loop() }
    }

    private func loop() {
        while !disposable.isDisposed {
            block { self.reschedule() }
            let again = state.withLock { state in
                guard state.pending > 0 else {
                    state.looping = false
                    return false
                }
                state.pending -= 1
                return true
            }
            if !again { return }
        }
        state.withLock { $0 = State() }
    }
}
