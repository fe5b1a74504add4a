import Dispatch
import Schedulers

/// Swift concurrency as schedulers: the global concurrent executor, a default actor, and an
/// actor on a custom `SerialExecutor`, with `Task.sleep` for timers and `Task.cancel` for
/// cancellation (checked before the action runs, as the field's cooperative cancellation does).
final class TaskSubject: Scheduler {
    /// Where the actions run.
    enum Target {
        /// The global concurrent executor, from `Task.detached`.
        case global
        /// A default actor, reached from `Task.detached`: the hop gives no FIFO.
        case actor
        /// An actor on a FIFO `SerialExecutor`, reached from `Task.immediate`, which enqueues
        /// on the actor before `schedule` returns, so one producer's actions keep their order.
        case serialExecutor
    }

    /// An actor that runs actions; `run` is isolated to it.
    fileprivate protocol Runner: Actor {}

    private actor DefaultActor: Runner {}

    private actor ExecutorActor: Runner {
        private let executor = QueueExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    }

    let name: String
    let capabilities: SchedulerCapabilities
    private let runner: (any Runner)?
    private let immediate: Bool

    init(name: String, target: Target) {
        self.name = name
        switch target {
        case .global: runner = nil
        case .actor: runner = DefaultActor()
        case .serialExecutor: runner = ExecutorActor()
        }
        immediate = target == .serialExecutor
        capabilities = [.asynchronous, target == .global ? .concurrent : .serial, .cancellation, .timers]
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        start(after: nil, action)
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        start(after: now.duration(to: deadline), action)
    }

    private func start(after delay: Duration?, _ action: @escaping SchedulerAction) -> any Disposable {
        let runner = self.runner
        let operation: @Sendable () async -> Void = {
            if let delay, delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            if let runner { await runner.run(action) } else { action() }
        }
        #if compiler(>=6.2)
            if immediate, #available(macOS 26, iOS 26, tvOS 26, watchOS 26, *) {
                return TaskHandle(Task.immediate(operation: operation))
            }
        #endif
        // Without `Task.immediate`, the serial-executor subject loses its FIFO and shows it.
        return TaskHandle(Task.detached(operation: operation))
    }
}

extension TaskSubject.Runner {
    /// Checked here, on the actor, so a cancel that came while waiting for it counts.
    func run(_ action: SchedulerAction) {
        guard !Task.isCancelled else { return }
        action()
    }
}

/// A `SerialExecutor` that runs jobs in order on a serial dispatch queue.
private final class QueueExecutor: SerialExecutor {
    private let queue = DispatchQueue(label: "swift-serial-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}

/// A `TaskExecutor` on a dispatch queue, for tasks that must not wait for the cooperative pool.
final class QueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A task as a disposable.
final class TaskHandle: Disposable {
    private let task: Task<Void, Never>
    init(_ task: Task<Void, Never>) { self.task = task }
    func dispose() { task.cancel() }
    var isDisposed: Bool { task.isCancelled }
}
