import Dispatch
import SchedulerConformance
import Schedulers
import Synchronization

/// A serial and task executor written from scratch, correct unless given a fault: a job
/// list drained by one worker at a time on a queue (or, in virtual mode, by whoever drives
/// it), with the thread running a job as its isolation marker.
final class FaultyExecutor: SerialExecutor, TaskExecutor {
    enum Fault: String, Sendable {
        case dropsJobs = "executor-drops-jobs"
        case overlapsWhenBusy = "executor-overlaps-when-busy"
        case lifoBacklog = "executor-lifo-backlog"
        case runsInlineOnItsThread = "executor-runs-inline-on-its-thread"
        case notReflexive = "executor-not-reflexive"
        case isolationPerDrain = "executor-isolation-per-drain"
        case isolatedWhenBusy = "executor-isolated-when-busy"
        case checkIsolatedNeverTraps = "executor-check-isolated-never-traps"
        case taskRoleElsewhere = "executor-task-role-elsewhere"
        case runsEagerlyWhenIdle = "virtual-executor-runs-eagerly-when-idle"
    }

    private struct State {
        var pending: [UnownedJob] = []
        var draining = false
        var enqueued = 0
    }

    let fault: Fault?
    /// Jobs wait for a drive instead of a worker.
    let virtual: Bool
    private let state = Lock(State())
    private let worker = DispatchQueue(label: "faulty executor")
    /// The thread running one of this executor's jobs, or 0.
    private let runningOn = Atomic<UInt>(0)
    /// Where the task-executor role goes with the taskRoleElsewhere fault.
    private let elsewhere = ConcurrentTaskExecutor()

    init(_ fault: Fault?, virtual: Bool = false) {
        self.fault = fault
        self.virtual = virtual
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if fault == .runsInlineOnItsThread, runningOn.load(ordering: .acquiring) == ThreadProbe.id {
            return run(job, marked: true)
        }
        let (startWorker, drop, beside, inline) = state.withLock { state -> (Bool, Bool, Bool, Bool) in
            state.enqueued += 1
            if fault == .dropsJobs, state.enqueued % 150 == 0 { return (false, true, false, false) }
            if fault == .overlapsWhenBusy, state.draining { return (false, false, true, false) }
            if fault == .runsEagerlyWhenIdle, !state.draining, state.pending.isEmpty { return (false, false, false, true) }
            state.pending.append(job)
            guard !virtual, !state.draining else { return (false, false, false, false) }
            state.draining = true
            return (true, false, false, false)
        }
        if drop { return }
        if beside { return DispatchQueue.global().async { self.run(job, marked: true) } }
        if inline { return run(job, marked: true) }
        if startWorker { worker.async { self.drain() } }
    }

    /// Runs every pending job on this thread, including jobs enqueued meanwhile.
    func drain() {
        var first = true
        while let job = next() {
            run(job, marked: fault != .isolationPerDrain || first)
            first = false
        }
    }

    private func next() -> UnownedJob? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.draining = false
                return nil
            }
            state.draining = true
            return fault == .lifoBacklog ? state.pending.removeLast() : state.pending.removeFirst()
        }
    }

    private func run(_ job: UnownedJob, marked: Bool) {
        let previous = runningOn.exchange(marked ? ThreadProbe.id : 0, ordering: .acquiringAndReleasing)
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        runningOn.store(previous, ordering: .releasing)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(complexEquality: self) }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        fault == .taskRoleElsewhere ? elsewhere.asUnownedTaskExecutor() : UnownedTaskExecutor(ordinary: self)
    }

    func isSameExclusiveExecutionContext(other: FaultyExecutor) -> Bool {
        fault == .notReflexive ? other !== self : other === self
    }

    func isIsolatingCurrentContext() -> Bool? {
        let thread = runningOn.load(ordering: .acquiring)
        switch fault {
        case .isolatedWhenBusy: return thread != 0
        // Cannot tell, says nil: only its checkIsolated() can be judged, by trapping.
        case .checkIsolatedNeverTraps: return thread == ThreadProbe.id ? true : nil
        default: return thread == ThreadProbe.id
        }
    }

    func checkIsolated() {
        guard fault != .checkIsolatedNeverTraps else { return }
        precondition(isIsolatingCurrentContext() == true, "not on the faulty executor")
    }

    /// The executor as the suite sees it.
    var underTest: ExecutorUnderTest {
        var drive: (@Sendable () -> Void)?
        if virtual { drive = { self.drain() } }
        return ExecutorUnderTest(self, checksIsolation: true, drive: drive)
    }
}

/// A task executor that runs jobs on the global concurrent queue, isolation unknown.
private final class ConcurrentTaskExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
