import Dispatch
import SchedulerVocabulary

/// A bare serial `DispatchQueue` as a `SerialExecutor`: the least an adopter writes on
/// Linux, where Dispatch's queues are not executors. It is the executor benchmark's
/// baseline, and a subject of the third-party matrix.
public final class DispatchQueueExecutor: SerialExecutor {
    /// The queue the jobs run on.
    public let queue: DispatchQueue

    /// An executor on a new serial queue labelled `label`.
    public init(label: String) { queue = DispatchQueue(label: label) }

    /// Runs `job` on the queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
