import Synchronization

/// Recursive scheduling on top of any scheduler's `schedule`, as ReactiveCocoa does it.
///
/// 1. Starting creates one composite disposable for the whole recursion and schedules
///    one run.
/// 2. When a run starts it removes its own handle from the composite, and stops if the
///    recursion was disposed.
/// 3. While the block executes synchronously, `reschedule` only counts; once the block
///    returns, one run is scheduled per counted call.
/// 4. A `reschedule` called after the block returned (from any thread) schedules at once.
/// 5. Disposing the composite prevents every further run.
///
/// So a run never re-enters itself, and on a scheduler that queues nested work (a queue,
/// the trampoline, the test scheduler) the stack does not grow with depth.
public enum RecursiveScheduling {
    /// Starts a recursion of `block` on `scheduler`; returns the disposable for all of it.
    public static func start(
        on scheduler: any Scheduler,
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> any Disposable {
        let recursion = Recursion(scheduler: scheduler, block: block)
        recursion.scheduleRun()
        return recursion.disposable
    }
}

private final class Recursion: Sendable {
    let scheduler: any Scheduler
    let block: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    let disposable = CompositeDisposable()

    init(scheduler: any Scheduler, block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.scheduler = scheduler
        self.block = block
    }

    func scheduleRun() {
        // The slot is in the composite before the run can start, so the run can always
        // remove it, whichever thread gets there first.
        let slot = SerialDisposable()
        guard let key = disposable.add(slot) else { return }
        let run = Run(recursion: self, key: key)
        slot.inner = scheduler.schedule { run.execute() }
    }
}

/// One run of the block, and the `reschedule` function it hands out.
private final class Run: Sendable {
    private struct State {
        var executing = true
        var pending = 0
    }

    private let recursion: Recursion
    private let key: CompositeDisposable.Key
    private let state = Mutex(State())

    init(recursion: Recursion, key: CompositeDisposable.Key) {
        self.recursion = recursion
        self.key = key
    }

    func execute() {
        recursion.disposable.remove(key)
        guard !recursion.disposable.isDisposed else { return }
        recursion.block { self.reschedule() }
        let pending = state.withLock { state in
            state.executing = false
            return state.pending
        }
        for _ in 0..<pending { recursion.scheduleRun() }
    }

    private func reschedule() {
        let deferred = state.withLock { state in
            if state.executing { state.pending += 1 }
            return state.executing
        }
        if !deferred { recursion.scheduleRun() }
    }
}
