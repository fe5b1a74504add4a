import Schedulers

/// A bare serial executor that keeps its jobs in a list until the driving thread runs them: the
/// least a driven (virtual-time) executor does, and the benchmarks' baseline for one. Its jobs
/// run in both roles, as an actor's executor and as a task's preferred one, as the library's
/// executors' do.
final class DrivenSerialExecutor: SerialExecutor, TaskExecutor {
    private let jobs = Lock<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs the jobs enqueued so far, and those they enqueue, in order, until none is left.
    func drive() {
        while true {
            let batch = jobs.withLock { jobs in
                var taken: [UnownedJob] = []
                swap(&taken, &jobs)
                return taken
            }
            if batch.isEmpty { return }
            for job in batch {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
        }
    }
}

/// Tasks parked on bare continuations with their deadlines, resumed all at once in deadline
/// order, FIFO among equal ones: the least a manual clock does, and the benchmarks' baseline
/// for one.
final class ParkedContinuations: Sendable {
    private typealias Sleeper = (deadline: Int, order: Int, continuation: UnsafeContinuation<Void, Never>)
    private let sleepers = Lock<(parked: [Sleeper], next: Int)>(([], 0))

    func add(_ continuation: UnsafeContinuation<Void, Never>, deadline: Int) {
        sleepers.withLock { state in
            state.parked.append((deadline, state.next, continuation))
            state.next += 1
        }
    }

    func resumeAll() {
        let ready = sleepers.withLock { state in
            defer { state.parked.removeAll() }
            return state.parked
        }
        for sleeper in ready.sorted(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }) {
            sleeper.continuation.resume()
        }
    }
}
