import Dispatch
import SchedulerProbes
import SchedulerVocabulary
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
        /// Runs a job enqueued while it has nothing to do inside `enqueue`, on the caller's
        /// thread ("there is nothing to wait for"), then hands the drain back to its worker.
        case runsInlineWhenIdle = "executor-runs-inline-when-idle"
        case nestedRunsNext = "executor-nested-runs-next"
        case nestedAfterBacklog = "executor-nested-after-backlog"
        /// Declares its jobs' follow-ups ahead of the waiting jobs, but runs them last first.
        case nestedRunsNextLastFirst = "executor-nested-runs-next-last-first"
        /// Declares its jobs' follow-ups ahead of the waiting jobs, but keeps them in a list of
        /// their own drained in order, so a nested job's follow-up waits behind its siblings.
        case nestedAheadBreadthFirst = "executor-nested-ahead-breadth-first"
        /// Declares its jobs' follow-ups ahead of the waiting jobs, but puts every job enqueued
        /// while one runs there, from any thread.
        case aheadWhileRunning = "executor-ahead-while-running"
        case sameContextForEveryInstance = "executor-same-context-for-every-instance"
        case sameContextByRunningThread = "executor-same-context-by-running-thread"
        case isolatedInAnyInstancesJob = "executor-isolated-in-any-instances-job"
        case isolatedOnAnyPoolThread = "executor-isolated-on-any-pool-thread"
        /// Runs the highest-priority queued job first, FIFO among equals, as a default actor
        /// does, while claiming a serial queue's FIFO order (it does not declare it).
        case priorityOrder = "executor-priority-order"

        /// The faults whose instances all drain on one pool of threads.
        var sharesPool: Bool { self == .isolatedInAnyInstancesJob || self == .isolatedOnAnyPoolThread }
    }

    private struct State {
        var pending: [UnownedJob] = []
        var draining = false
        var enqueued = 0
        /// How many jobs the running job has enqueued (the nestedRunsNext fault puts them first).
        var nestedByRunning = 0
        /// Jobs enqueued from inside a job, held back by the nestedAfterBacklog fault, or run
        /// before the backlog by the nestedAheadBreadthFirst one.
        var deferred: [UnownedJob] = []
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
        let fromOwnJob = runningOn.load(ordering: .acquiring) == ThreadProbe.id
        let (startWorker, drop, beside, inline) = state.withLock { state -> (Bool, Bool, Bool, Bool) in
            state.enqueued += 1
            if fromOwnJob, fault == .nestedRunsNext {
                // A same-thread fast path: work a job spawns runs next, ahead of the backlog.
                state.pending.insert(job, at: state.nestedByRunning)
                state.nestedByRunning += 1
                return (false, false, false, false)
            }
            if fromOwnJob, fault == .nestedRunsNextLastFirst {
                // The fast path as a stack: the latest follow-up first.
                state.pending.insert(job, at: 0)
                return (false, false, false, false)
            }
            if fault == .aheadWhileRunning, state.draining, fromOwnJob || runningOn.load(ordering: .acquiring) != 0 {
                // "While a job runs" taken for "from inside a job": another thread's job too.
                state.pending.insert(job, at: state.nestedByRunning)
                state.nestedByRunning += 1
                return (false, false, false, false)
            }
            if fromOwnJob, fault == .nestedAfterBacklog || fault == .nestedAheadBreadthFirst {
                // Fairness, as its author saw it: spawned work waits until the backlog is gone.
                state.deferred.append(job)
                return (false, false, false, false)
            }
            if fault == .dropsJobs, state.enqueued % 150 == 0 { return (false, true, false, false) }
            if fault == .overlapsWhenBusy, state.draining { return (false, false, true, false) }
            if fault == .runsEagerlyWhenIdle, !state.draining, state.pending.isEmpty {
                return (false, false, false, true)
            }
            if fault == .runsInlineWhenIdle, !state.draining, state.pending.isEmpty {
                state.draining = true
                return (false, false, false, true)
            }
            state.pending.append(job)
            guard !virtual, !state.draining else { return (false, false, false, false) }
            state.draining = true
            return (true, false, false, false)
        }
        if drop { return }
        if beside { return DispatchQueue.global().async { self.run(job, marked: true) } }
        if inline {
            run(job, marked: true)
            if fault == .runsInlineWhenIdle { worker.async { self.drain() } }
            return
        }
        if startWorker {
            if fault?.sharesPool == true {
                SharedWorkerPool.shared.submit { self.drain() }
            } else {
                worker.async { self.drain() }
            }
        }
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
            if state.pending.isEmpty, !state.deferred.isEmpty { swap(&state.pending, &state.deferred) }
            if fault == .nestedAheadBreadthFirst, !state.deferred.isEmpty {
                state.draining = true
                return state.deferred.removeFirst()
            }
            guard !state.pending.isEmpty else {
                state.draining = false
                return nil
            }
            state.draining = true
            state.nestedByRunning = 0
            switch fault {
            case .lifoBacklog: return state.pending.removeLast()
            case .priorityOrder:
                // `max(by:)` keeps the first of equal maxima: FIFO among equal priorities.
                let best = state.pending.indices.max {
                    state.pending[$0].priority.rawValue < state.pending[$1].priority.rawValue
                }!
                return state.pending.remove(at: best)
            default: return state.pending.removeFirst()
            }
        }
    }

    private func run(_ job: UnownedJob, marked: Bool) {
        let previous = runningOn.exchange(marked ? ThreadProbe.id : 0, ordering: .acquiringAndReleasing)
        if fault?.sharesPool == true { SharedWorkerPool.shared.jobStarted() }
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        if fault?.sharesPool == true { SharedWorkerPool.shared.jobEnded() }
        runningOn.store(previous, ordering: .releasing)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(complexEquality: self) }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        fault == .taskRoleElsewhere ? elsewhere.asUnownedTaskExecutor() : UnownedTaskExecutor(ordinary: self)
    }

    func isSameExclusiveExecutionContext(other: FaultyExecutor) -> Bool {
        switch fault {
        case .notReflexive: other !== self
        // "Executors of one type share one worker design", so they are one context.
        case .sameContextForEveryInstance: true
        // "One context is one thread": two idle executors both run on no thread.
        case .sameContextByRunningThread:
            other.runningOn.load(ordering: .acquiring) == runningOn.load(ordering: .acquiring)
        default: other === self
        }
    }

    func isIsolatingCurrentContext() -> Bool? {
        let thread = runningOn.load(ordering: .acquiring)
        switch fault {
        case .isolatedWhenBusy: return thread != 0
        // A marker kept per pool thread, not per executor: any instance's job counts.
        case .isolatedInAnyInstancesJob: return SharedWorkerPool.shared.isRunningJob
        // Any thread of the pool it shares with its other instances counts.
        case .isolatedOnAnyPoolThread: return SharedWorkerPool.shared.isPoolThread
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
