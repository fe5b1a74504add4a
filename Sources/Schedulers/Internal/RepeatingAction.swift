/// A repeating action and its cancellation handle, shared by every repeating scheduler.
///
/// A tick that has taken the action before `dispose()` runs whole; no tick starts after
/// `dispose()` returned. Disposal releases the action (once a running tick finishes) and
/// runs `onDispose`, which is how a timer source gets cancelled.
final class RepeatingAction: Disposable {
    private struct State {
        var action: SchedulerAction?
        var onDispose: (@Sendable () -> Void)?
    }

    private let state: Lock<State>
    /// Its period, for a scheduler that queues each tick itself (virtual time); 0 where a
    /// timer source keeps the period.
    let intervalNanoseconds: Int64

    /// A repeating action; disposal also runs `onDispose` (once).
    init(
        _ action: @escaping SchedulerAction, intervalNanoseconds: Int64 = 0, onDispose: (@Sendable () -> Void)? = nil
    ) {
        self.state = Lock(State(action: action, onDispose: onDispose))
        self.intervalNanoseconds = intervalNanoseconds
    }

    /// The action while not disposed: a scheduler that decides under its own lock which work
    /// starts takes it there, so the tick it chose runs even if disposed a moment later.
    var action: SchedulerAction? { state.withLock { $0.action } }

    /// Runs one tick as `scheduler`, the current scheduler meanwhile; nothing once disposed.
    /// (A scheduler that runs its queue as itself already takes ``action`` instead.)
    func tick(as scheduler: any Scheduler) {
        guard let action else { return }
        CurrentScheduler.run(as: scheduler, action)
    }

    func dispose() {
        let (action, onDispose) = state.withLock { ($0.action.take(), $0.onDispose.take()) }
        // Released here, outside the lock: the closure's captures may run deinit code.
        _ = action
        onDispose?()
    }

    var isDisposed: Bool { state.withLock { $0.action == nil } }
}
