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
    /// The scheduler to run as; nil when the caller already runs as it (and must not be
    /// retained by it, as the test scheduler's queue would be).
    let scheduler: (any Scheduler)?

    init(_ action: @escaping SchedulerAction, scheduler: (any Scheduler)?) {
        self.state = Lock(State(action: action))
        self.scheduler = scheduler
    }

    /// Sets what disposal must also do; runs it at once if already disposed.
    func onDispose(_ body: @escaping @Sendable () -> Void) {
        let alreadyDisposed = state.withLock { state in
            guard state.action != nil else { return true }
            state.onDispose = body
            return false
        }
        if alreadyDisposed { body() }
    }

    /// The action while not disposed: a scheduler that decides under its own lock which work
    /// starts takes it there, so the tick it chose runs even if disposed a moment later.
    var action: SchedulerAction? { state.withLock { $0.action } }

    /// Runs one tick (as the current scheduler, when one was given); returns false once disposed.
    @discardableResult
    func tick() -> Bool {
        guard let action = state.withLock({ $0.action }) else { return false }
        if let scheduler { CurrentScheduler.run(as: scheduler, action) } else { action() }
        return true
    }

    func dispose() {
        let (action, onDispose) = state.withLock { ($0.action.take(), $0.onDispose.take()) }
        // Released here, outside the lock: the closure's captures may run deinit code.
        _ = action
        onDispose?()
    }

    var isDisposed: Bool { state.withLock { $0.action == nil } }
}
