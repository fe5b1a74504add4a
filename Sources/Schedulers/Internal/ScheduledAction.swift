import Synchronization

/// A one-shot action and its cancellation handle in one allocation.
///
/// States, held in `state` as two bits:
/// 1. pending: neither bit; the action is stored.
/// 2. claimed by `run()`: `claimed`; the runner took the action and runs it (or ran it).
/// 3. claimed by `dispose()` first: `claimed | disposed`; the action was released unrun.
/// 4. disposed while or after running: `claimed | disposed`, set after state 2.
/// Whoever sets `claimed` first owns `action`, so a dispose that returned before the run
/// claimed means the action never starts, and a run that claimed first runs whole.
final class ScheduledAction: Disposable, @unchecked Sendable {
    // @unchecked: `action` is read and cleared only by the single owner of the `claimed` bit.
    private static let claimed: UInt8 = 1
    private static let disposed: UInt8 = 2

    private let state = Atomic<UInt8>(0)
    private var action: SchedulerAction?
    /// The scheduler to run as; it stays alive while the action is pending.
    let scheduler: (any Scheduler)?

    init(_ action: @escaping SchedulerAction, scheduler: (any Scheduler)?) {
        self.action = action
        self.scheduler = scheduler
    }

    /// Runs the action unless it was disposed or already run, as the current scheduler
    /// when one was given; the action is released before this returns.
    @inline(__always)
    func run() {
        guard let action = claim() else { return }
        if let scheduler {
            CurrentScheduler.run(as: scheduler, action)
        } else {
            action()
        }
    }

    /// Takes the action to run it, unless it was disposed or already taken: from here on the
    /// action counts as started, and disposing changes nothing. A scheduler that decides
    /// under its own lock which action starts claims it there, so no dispose can come
    /// between its decision and the start.
    @inline(__always)
    func claim() -> SchedulerAction? {
        let previous = state.bitwiseOr(Self.claimed, ordering: .acquiringAndReleasing).oldValue
        guard previous & Self.claimed == 0 else { return nil }
        return action.take()
    }

    func dispose() {
        let previous = state.bitwiseOr(Self.claimed | Self.disposed, ordering: .acquiringAndReleasing).oldValue
        guard previous & Self.claimed == 0 else { return }
        action = nil
    }

    var isDisposed: Bool { state.load(ordering: .acquiring) & Self.disposed != 0 }
}
