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
            thread.trampolineQueue.append(item)
            return item
        }
        thread.trampolineActive = true
        defer { thread.trampolineActive = false }
        CurrentScheduler.run(as: self) {
            action()
            while let next = thread.trampolineQueue.popFirst() { next.run() }
        }
        return nil
    }
}
