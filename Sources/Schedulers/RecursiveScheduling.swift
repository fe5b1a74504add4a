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
/// the trampoline, the test scheduler) the stack does not grow with depth. A scheduler
/// claiming ``SchedulerCapabilities/synchronous`` would run each rescheduled block inside
/// the previous one, so for those the recursion is unrolled into a loop over a counter
/// of pending runs, on the calling thread, instead.
public enum RecursiveScheduling {
    /// Starts a recursion of `block` on `scheduler`; returns the disposable for all of it.
    public static func start(
        on scheduler: any Scheduler,
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> any Disposable {
        if scheduler.capabilities.contains(.synchronous) {
            let loop = UnrolledRecursion(block)
            loop.reschedule()
            return loop.disposable
        }
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
        // The run is in the composite before it can start, so it can always remove itself,
        // whichever thread gets there first.
        let run = Run(recursion: self)
        guard let key = disposable.add(run) else { return }
        run.key = key
        run.scheduled(handle: scheduler.schedule { run.execute() })
    }
}

/// One run of the block: its handle in the composite, and the `reschedule` function it
/// hands out.
///
/// States of `progress` (bit 0 "returned", the rest a count of deferred reschedules):
/// 1. executing or not yet started: bit 0 clear, `reschedule` adds 2; 2. returned: bit 0
/// set, `reschedule` schedules at once. The scheduled action's handle sits behind a lock
/// until the run returns or the recursion is disposed.
///
/// @unchecked Sendable: `key` is written once, before the run is scheduled (which
/// publishes it); the rest is atomic or behind the lock.
private final class Run: Disposable, @unchecked Sendable {
    private static let returned = 1
    private static let oneReschedule = 2

    private let recursion: Recursion
    private let progress = Atomic<Int>(0)
    private let handle = Lock<(handle: (any Disposable)?, disposed: Bool)>((nil, false))
    /// This run's place in the recursion's composite.
    var key: CompositeDisposable.Key?

    init(recursion: Recursion) {
        self.recursion = recursion
    }

    /// Keeps the scheduled action's handle, unless the run was disposed (or already ran).
    func scheduled(handle scheduled: (any Disposable)?) {
        guard let scheduled else { return }
        let disposeNow = handle.withLock { state -> Bool in
            guard !state.disposed else { return true }
            if progress.load(ordering: .acquiring) & Self.returned == 0 { state.handle = scheduled }
            return false
        }
        if disposeNow { scheduled.dispose() }
    }

    func execute() {
        if let key { recursion.disposable.remove(key) }
        // A run of a disposed recursion does not start its block, but it ends as any run does:
        // once out of the composite, nothing else lets go of its handle, which on a scheduler
        // whose handle keeps its action (a `DispatchWorkItem`) keeps this run, and the block.
        if !recursion.disposable.isDisposed { recursion.block { self.reschedule() } }
        let deferred = progress.exchange(Self.returned, ordering: .acquiringAndReleasing) / Self.oneReschedule
        _ = handle.withLock { $0.handle.take() }
        for _ in 0..<deferred { recursion.scheduleRun() }
    }

    private func reschedule() {
        var current = progress.load(ordering: .relaxed)
        while current & Self.returned == 0 {
            let (exchanged, original) = progress.compareExchange(
                expected: current, desired: current + Self.oneReschedule, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
        recursion.scheduleRun()
    }

    func dispose() {
        handle.withLock { state -> (any Disposable)? in
            state.disposed = true
            return state.handle.take()
        }?.dispose()
    }

    var isDisposed: Bool { handle.withLock { $0.disposed } }
}

/// Recursion as a counter of pending runs and a loop that drains it.
private final class UnrolledRecursion: Sendable {
    private struct State {
        var looping = false
        var pending = 0
    }

    let disposable = BooleanDisposable()
    private let block: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    private let state = Lock(State())

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
        // Disposed: `looping` stays set, so a later `reschedule` only counts, and nothing runs.
    }
}
