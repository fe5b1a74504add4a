/// The per-thread trampoline (RxSwift's `CurrentThreadScheduler`).
///
/// When no trampoline runs on the calling thread, `schedule` runs the action at once, as
/// the current scheduler, then drains the actions scheduled during it in FIFO order,
/// skipping disposed ones, and returns `nil` (the action already ran). When one is running
/// on this thread, `schedule` only enqueues and returns a handle that can cancel the
/// action. Each thread has its own queue, so nested schedules run after the outer action
/// returns, in order, and recursion never grows the stack.
public final class TrampolineScheduler: Scheduler {
    /// The one trampoline; its queues are per thread.
    public static let shared = TrampolineScheduler()

    public let name = "TrampolineScheduler"
    public var capabilities: SchedulerCapabilities { [.trampoline, .tracksCurrent] }

    private init() {}

    public var now: SchedulerTime { DispatchBackend.now }

    /// Whether a trampoline drain is running on the calling thread.
    public var isRunningOnThisThread: Bool { ThreadState.local.trampolineActive }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let thread = ThreadState.local
        guard !thread.trampolineActive else {
            // No scheduler to run as: the drain below already runs as this one.
            let item = ScheduledAction(action, scheduler: nil)
            thread.trampolineQueue.append(.action(item))
            return item
        }
        drain(thread) { action() }
        return nil
    }

    /// Recursion on the trampoline, with one object for the whole recursion instead of
    /// several per run: a run is an entry of the thread's queue naming the recursion.
    /// Reschedules the block makes while it runs (on its own thread) are counted and queued
    /// once it returns, after whatever else it scheduled; any other reschedule (after the
    /// block returned, or from another thread) runs at once on the caller's trampoline,
    /// as ``RecursiveScheduling`` does for a reschedule made after the block returned.
    ///
    /// - Returns: The recursion's handle; disposing it stops every further run, queued
    ///   ones included.
    @discardableResult
    public func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        let recursion = TrampolineRecursion(block)
        recursion.scheduleRun()
        return recursion.handle
    }

    /// Runs `first` then every queued entry on this thread, as this scheduler, marking the
    /// thread busy meanwhile.
    @inline(__always)
    fileprivate func drain(_ thread: ThreadState, _ first: () -> Void) {
        thread.trampolineActive = true
        defer { thread.trampolineActive = false }
        CurrentScheduler.run(as: self) {
            first()
            while let next = thread.trampolineQueue.popFirst() {
                switch next {
                case .action(let action): action.run()
                case .recursion(let recursion): recursion.execute(on: thread)
                }
            }
        }
    }
}

/// An entry of a thread's trampoline queue.
enum TrampolineEntry {
    /// A scheduled action.
    case action(ScheduledAction)
    /// One run of a recursion.
    case recursion(TrampolineRecursion)
}

/// A recursion on the trampoline: its block, its handle, and the function it hands the
/// block. The handle is a separate flag, not the recursion: callers keep handles for a
/// subscription's whole life, and a handle that held the block would keep everything the
/// block captured alive after the recursion ended. Which run is executing, and how many
/// reschedules it made, is kept on the thread running it (``ThreadState``), so runs on
/// different threads never share a count.
final class TrampolineRecursion: Sendable {
    private let block: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    /// The recursion's handle: disposing it prevents every further run.
    let handle = BooleanDisposable()

    init(_ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void) {
        self.block = block
    }

    /// Queues one run on this thread's trampoline, or runs it (and drains) when none is active.
    func scheduleRun() {
        let thread = ThreadState.local
        if thread.trampolineActive {
            thread.trampolineQueue.append(.recursion(self))
        } else {
            TrampolineScheduler.shared.drain(thread) { execute(on: thread) }
        }
    }

    /// Runs the block once unless disposed, then queues one run per reschedule it made.
    func execute(on thread: ThreadState) {
        guard !handle.isDisposed else { return }
        let outer = (thread.executingRecursion, thread.deferredReschedules)
        thread.executingRecursion = self
        thread.deferredReschedules = 0
        block(reschedule)
        let deferred = thread.deferredReschedules
        (thread.executingRecursion, thread.deferredReschedules) = outer
        for _ in 0..<deferred { thread.trampolineQueue.append(.recursion(self)) }
    }

    /// Counts a reschedule made while the block runs on this thread; any other (later, or
    /// from another thread) schedules a run at once.
    private var reschedule: @Sendable () -> Void {
        { [self] in
            let thread = ThreadState.local
            if thread.executingRecursion === self {
                thread.deferredReschedules += 1
            } else {
                scheduleRun()
            }
        }
    }
}
