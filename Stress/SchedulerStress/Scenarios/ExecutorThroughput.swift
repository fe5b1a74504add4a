import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// The enqueue→run cost per job of an executor, against a bare serial executor of its sort
    /// (on a `DispatchQueue`, or driven like the subject) measured in alternation in the same
    /// process.
    public static let executorThroughput = StressScenario(
        .executorThroughput,
        """
        A job on the executor starts a batch of tasks isolated to an actor on it (or, for a task executor only, \
        preferring it): each task's job is enqueued by the job running there, and the executor drains the batch back \
        to back. The same batch runs in alternation on a bare serial executor: a DispatchQueue's, or for an \
        executor that runs jobs only when driven, one that keeps them in a list for the driving thread. Reports the \
        cost per job (a task's creation, enqueue and run), its ratio to the bare baseline, and allocations per job \
        for both.
        """,
        kind: .executor,
        outcomes: ExecutorThroughputOutcome.self,
        isBenchmark: true
    ) { ctx throws(StressFailure) in
        let executor = ctx.subject.makeExecutor()
        let bare: any SerialExecutor
        var bareDrive: (@Sendable () -> Void)? = nil
        if ctx.subject.baseline == .drivenExecutor {
            let driven = DrivenSerialExecutor()
            (bare, bareDrive) = (driven, { driven.drive() })
        } else {
            bare = DispatchQueueExecutor(label: "executor throughput baseline")
        }
        let baseline = JobBatch(serial: bare)
        let subject = executor.serial.map(JobBatch.init(serial:)) ?? JobBatch(task: executor.task!)
        let jobs = 20_000
        try ctx.benchmark(unit: .job, operations: jobs, completed: ExecutorThroughputOutcome.completed) {
            () throws(StressFailure) in
            let (base, baseAllocations) = try baseline.measure(jobs, ctx, drive: bareDrive)
            let (mine, allocations) = try subject.measure(jobs, ctx, drive: executor.drive)
            return BenchmarkRound(
                nanoseconds: mine, baselineNanoseconds: base, allocations: allocations,
                baselineAllocations: baseAllocations)
        }
    }
}

/// A batch of jobs that one job enqueues on its own executor, which then runs them back to
/// back: nothing crosses threads between two jobs, so the cost per job is the executor's and
/// the runtime's, not a worker thread's wake-up.
///
/// A task that yields or a continuation resumed on the executor does not do this on Linux:
/// the runtime resumes it on the global pool, which hops back and wakes the executor's
/// thread for every job (11 µs a job on a bare `DispatchQueue` executor, nearly all of it
/// waiting). A task created inside an actor's job and isolated to the same actor has its
/// first job enqueued by that job, on the thread running it.
struct JobBatch: Sendable {
    private let launch: @Sendable (_ count: Int, _ done: Countdown) -> Void

    /// Tasks isolated to an actor on `executor`.
    init(serial executor: any SerialExecutor) {
        let actor = BatchActor(executor)
        // Started from a thread of its own: nothing waits for the cooperative pool, which
        // other work in the process (blocking tests, say) may be holding.
        launch = { count, done in Thread { Task.immediate { await actor.start(count, then: done) } }.start() }
    }

    /// Tasks isolated to an actor on a driven `executor`, started by a task that prefers it:
    /// every job waits for the driving thread.
    init(drivenSerial executor: any SerialExecutor & TaskExecutor) {
        let actor = BatchActor(executor)
        launch = { count, done in Task(executorPreference: executor) { await actor.start(count, then: done) } }
    }

    /// Tasks that prefer `executor`, started by a task that prefers it too.
    init(task executor: any TaskExecutor) {
        launch = { count, done in
            Task(executorPreference: executor) {
                for _ in 0..<count { Task(executorPreference: executor) { done.tick() } }
            }
        }
    }

    /// Starts `count` jobs, each ticking `done` once. A driven executor (a test scheduler's)
    /// runs nothing until driven.
    func start(_ count: Int, then done: Countdown) { launch(count, done) }

    /// Nanoseconds per job, and allocation requests per job in the whole process
    /// (jemalloc only; the jobs run on the executor's threads, not this one).
    func measure(_ count: Int, _ ctx: StressContext, drive: (@Sendable () -> Void)?) throws(StressFailure) -> (
        Double, Double?
    ) {
        try ctx.perOperation(count) { () throws(StressFailure) in
            let done = Countdown(count)
            start(count, then: done)
            if let drive {
                let giveUp = ContinuousClock.now + ctx.mustHappen
                while done.count > 0, ContinuousClock.now < giveUp { drive() }
            }
            guard done.wait(ctx.mustHappen) else {
                ctx.record(ExecutorThroughputOutcome.lost)
                throw StressFailure("a batch of \(count) jobs did not finish within \(ctx.mustHappen)")
            }
        }
    }
}

/// An actor on the executor under test, whose job starts the batch: tasks isolated to it.
private actor BatchActor {
    private let executor: any SerialExecutor

    init(_ executor: any SerialExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func start(_ count: Int, then done: Countdown) {
        // Each task inherits this actor's isolation: its first job goes straight to the
        // executor, enqueued from this job.
        for _ in 0..<count { Task { self.finish(done) } }
    }

    private func finish(_ done: Countdown) { done.tick() }
}

/// What a run of `executorThroughput` observes; the raw values are the names reports use.
public enum ExecutorThroughputOutcome: String, StressOutcome {
    case completed, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .completed: .acceptable("every job of the loop ran")
        case .lost: .forbidden("the loop stopped: a job never ran")
        }
    }
}
