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

    public init(name: String = "WorkerThreadScheduler") {
        self.name = name
        let worker = self.worker
        Thread { worker.loop() }.start()
    }

    deinit { worker.stop() }

    public var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
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

/// The queue and its thread.
private final class Worker: Sendable {
    private let jobs = Mutex<(queue: [SchedulerAction], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)

    func enqueue(_ job: @escaping SchedulerAction) {
        jobs.withLock { $0.queue.append(job) }
        wakeUp.signal()
    }

    func stop() {
        jobs.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    func loop() {
        while true {
            wakeUp.wait()
            while let job = jobs.withLock({ $0.queue.isEmpty ? nil : $0.queue.removeFirst() }) { job() }
            if jobs.withLock({ $0.stopped && $0.queue.isEmpty }) { return }
        }
    }
}
