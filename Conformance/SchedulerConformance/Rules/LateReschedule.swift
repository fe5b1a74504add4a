import SchedulerProbes
import Schedulers

/// A recursion whose first run keeps its `reschedule`, so a rule can ask for a run after that
/// one returned: the door where a scheduler may take a shortcut past its own queue or wrapper.
/// Call ``stop()`` when done.
final class LateReschedule: Sendable {
    private let reschedule = Box<(@Sendable () -> Void)?>(nil)
    private let later = Box<(@Sendable () -> Void)?>(nil)
    /// Fires inside the first run's block (which may not have returned yet).
    let firstRan = Signal()

    /// Starts each recursion on `scheduler` and returns once every first run has returned;
    /// the recursions' handles.
    static func start(
        _ recursions: [LateReschedule], on scheduler: any Scheduler, _ ctx: RuleContext
    ) throws(RuleFailure) -> [any Disposable] {
        var handles: [any Disposable] = []
        for recursion in recursions {
            if let handle = recursion.begin(on: scheduler) { handles.append(handle) }
            try ctx.waitFor(recursion.firstRan, on: scheduler, "a recursion's first run")
        }
        // The first runs fire inside their blocks: a reschedule before they returned would be
        // one made in the block, not a late one.
        try ctx.settle(scheduler)
        return handles
    }

    /// Asks for the next run, which calls `action`.
    func rerun(_ action: @escaping @Sendable () -> Void) {
        later.value = action
        reschedule.value?()
    }

    /// Lets go of the kept `reschedule`, which holds the recursion, whose block holds this.
    func stop() { reschedule.value = nil }

    /// Starts the recursion, without waiting for its first run.
    func begin(on scheduler: any Scheduler) -> (any Disposable)? {
        scheduler.scheduleRecursive { [self] reschedule in
            if let later = later.value {
                later()
            } else {
                self.reschedule.value = reschedule
                firstRan.fire()
            }
        }
    }
}
