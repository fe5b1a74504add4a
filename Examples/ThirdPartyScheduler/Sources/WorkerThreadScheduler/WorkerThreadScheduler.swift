import Foundation
import Schedulers
import Synchronization

/// A serial scheduler with a dedicated worker thread: FIFO, cancellable, no timers.
///
/// The whole adapter to the `Scheduler` protocol is this type: a name, honest
/// capabilities, a clock and `schedule`. The thread ends once the scheduler is released
/// and its queue is empty.
public final class WorkerThreadScheduler: Scheduler {
    public let name: String
    public var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .cancellation, .tracksCurrent] }
    private let worker = Worker()
    private let scheduled = Atomic<Int>(0)

    /// How many actions were scheduled, for this package's own diagnostics. No rule reads it,
    /// so `conformance mutate` reports a mutant that breaks it as a survivor (the README's
    /// example of one).
    public var scheduledCount: Int { scheduled.load(ordering: .relaxed) }

    public init(name: String = "WorkerThreadScheduler") {
        self.name = name
        let worker = self.worker
        // Named, so that a hang report (or a debugger) names the thread a stuck caller waits on.
        Thread {
            Thread.current.name = "worker-thread"
            worker.loop()
        }.start()
    }

    deinit { worker.stop() }

    public var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        scheduled.add(1, ordering: .relaxed)
        let handle = BooleanDisposable()
        // ReactiveCocoa's model: a disposed flag checked just before the run. The captured
        // `self` keeps the scheduler (and so its thread) alive while work is pending.
        worker.enqueue { [self] in
            guard !handle.isDisposed else { return }
            CurrentScheduler.run(as: self, action)
        }
        return handle
    }
}

/// The same worker thread as a Swift concurrency executor: actors bound to it, and tasks
/// that prefer it, run their jobs there, one at a time, in order.
///
/// Its thread runs nothing but its jobs, so "am I isolated?" is "am I on that thread?",
/// which lets it answer `isIsolatingCurrentContext()` and `checkIsolated()` for real.
public final class WorkerThreadExecutor: SerialExecutor, TaskExecutor {
    private let worker = Worker()

    public init() {
        let worker = self.worker
        Thread {
            Thread.current.name = "worker-thread"
            worker.loop()
        }.start()
    }

    deinit { worker.stop() }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The job keeps the executor (and so its thread) alive until it has run.
        worker.enqueue { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    public func isIsolatingCurrentContext() -> Bool? { worker.isCurrentThread }

    public func checkIsolated() {
        precondition(worker.isCurrentThread, "not on the worker thread of this executor")
    }
}

/// The queue and its thread.
private final class Worker: Sendable {
    private let jobs = Mutex<(queue: [SchedulerAction], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The worker thread, once it runs.
    private let thread = Mutex<ObjectIdentifier?>(nil)

    /// Whether the caller is the worker thread.
    var isCurrentThread: Bool { thread.withLock { $0 } == ObjectIdentifier(Thread.current) }

    func enqueue(_ job: @escaping SchedulerAction) {
        jobs.withLock { $0.queue.append(job) }
        wakeUp.signal()
    }

    func stop() {
        jobs.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    func loop() {
        thread.withLock { $0 = ObjectIdentifier(Thread.current) }
        var batch: [SchedulerAction] = []
        while true {
            wakeUp.wait()
            // The backlog is taken whole and run in order, and what comes meanwhile waits
            // for the next turn. Taking one job at a time with `removeFirst()` moved every
            // job left behind: the `growth` stress scenario measured a drain of n queued
            // jobs as n² (exponent 2.0).
            while true {
                jobs.withLock { swap(&batch, &$0.queue) }
                if batch.isEmpty { break }
                for job in batch { job() }
                batch.removeAll(keepingCapacity: true)
            }
            if jobs.withLock({ $0.stopped && $0.queue.isEmpty }) { return }
        }
    }
}
