import Dispatch
import Schedulers
import Synchronization

/// The suite's own executor for the tasks a rule starts: one job at a time, on a queue of its
/// own, so those tasks never wait for the cooperative pool (two threads on a 2-core machine,
/// and other blocking tests may hold them), and a rule can tell when every task it started is
/// parked (suspended) rather than running or about to run.
///
/// A task executor only, not a serial executor: a job run isolated to a serial executor hops
/// off it at its first call into nonisolated async code (the adapter's closure, the clock's
/// `sleep`), to the back of the queue, and a sleeper then reached its clock several
/// microseconds after the point the suite meant it to, at a scatter no meeting could aim at.
public final class ProbeExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "conformance probe executor")
    private let inFlight = DispatchGroup()
    /// The kernel ID of the thread running one of its jobs now, for a hang's diagnosis.
    private let running = Atomic<Int32>(-1)

    /// The thread running one of this probe's jobs now (a task that never suspends, say).
    package var runningThread: Int32? {
        let id = running.load(ordering: .relaxed)
        return id >= 0 ? id : nil
    }

    /// A new probe executor with no jobs.
    public init() {}

    /// Runs `job` on the probe's queue, counted until it has run.
    public func enqueue(_ job: consuming ExecutorJob) {
        run(UnownedJob(job), taskExecutor: asUnownedTaskExecutor())
    }

    /// Runs `job` on the probe's queue as a job of `taskExecutor` (the probe or one of its lanes).
    package func run(_ job: UnownedJob, taskExecutor: UnownedTaskExecutor) {
        inFlight.enter()
        queue.async {
            self.running.store(StackSample.sampleableCurrentThreadID ?? -1, ordering: .relaxed)
            job.runSynchronously(on: taskExecutor)
            self.running.store(-1, ordering: .relaxed)
            self.inFlight.leave()
        }
    }

    /// A task executor whose jobs run on this probe, in one order with all of its jobs, and
    /// that calls `resumed` on the thread that hands it each job after the first: the moment
    /// a task suspended on it is resumed (by a clock's advance, say), inside the resumer.
    package func lane(resumed: @escaping @Sendable () -> Void) -> ProbeLane { ProbeLane(self, resumed: resumed) }

    /// Whether every job enqueued so far has run, waiting up to `bound` for it: after this,
    /// a task started here that has not finished is suspended.
    public func waitIdle(_ bound: Duration) -> Bool {
        inFlight.wait(timeout: .now() + bound.dispatchInterval) == .success
    }
}

/// One task's way onto a ``ProbeExecutor``, which tells when the task is handed back to it.
package final class ProbeLane: TaskExecutor {
    private let probe: ProbeExecutor
    private let resumed: @Sendable () -> Void
    private let enqueued = Atomic<Int>(0)

    /// The probe whose thread runs this lane's jobs.
    package var underlying: ProbeExecutor { probe }

    init(_ probe: ProbeExecutor, resumed: @escaping @Sendable () -> Void) {
        self.probe = probe
        self.resumed = resumed
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if enqueued.add(1, ordering: .relaxed).newValue > 1 { resumed() }
        probe.run(job, taskExecutor: asUnownedTaskExecutor())
    }
}
