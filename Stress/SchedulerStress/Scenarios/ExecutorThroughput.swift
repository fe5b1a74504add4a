import Dispatch
import Foundation
import SchedulerConformance
import SchedulerProbes
import Schedulers
import Synchronization

extension StressScenario {
    /// The enqueue→run cost per job of an executor, against a bare serial
    /// `DispatchQueue` executor measured in alternation in the same process.
    public static let executorThroughput = StressScenario(
        "executor-throughput",
        "A task isolated to an actor on the executor (or, for a task executor only, preferring it) yields in a loop, so every iteration is one job enqueued and run; the same loop runs on an actor on a bare serial DispatchQueue executor in alternation. Reports the cost per job, its ratio to the bare baseline, and allocations per job for both.",
        kind: .executor,
        outcomes: ExecutorThroughputOutcome.self
    ) { ctx throws(StressFailure) in
        let executor = ctx.subject.makeExecutor()
        let baseline = YieldLoop(serial: DispatchQueueExecutor(label: "executor throughput baseline"))
        let subject = executor.serial.map(YieldLoop.init(serial:)) ?? YieldLoop(task: executor.task!)
        let jobs = 20_000
        try ctx.benchmark(unit: .job, operations: jobs, completed: ExecutorThroughputOutcome.completed) {
            () throws(StressFailure) in
            let (base, baseAllocations) = try baseline.measure(jobs, ctx, drive: nil)
            let (mine, allocations) = try subject.measure(jobs, ctx, drive: executor.drive)
            return BenchmarkRound(
                nanoseconds: mine, baselineNanoseconds: base, allocations: allocations,
                baselineAllocations: baseAllocations)
        }
    }
}

/// A task that yields `count` times on one executor: each yield is one job enqueued there.
private struct YieldLoop: Sendable {
    private let start: @Sendable (_ count: Int, _ done: Countdown) -> Void

    init(serial executor: any SerialExecutor) {
        let actor = YieldingActor(executor)
        // Started from a thread of its own, and the countdown ticks on the actor: nothing
        // waits for the cooperative pool, which other work in the process (blocking tests,
        // say) may be holding. (`Task.immediate` from a task on the pool gets its yields
        // back through the pool, and stalls when the pool is busy.)
        start = { count, done in Thread { Task.immediate { await actor.yield(count, then: done) } }.start() }
    }

    init(task executor: any TaskExecutor) {
        start = { count, done in
            Task(executorPreference: executor) {
                for _ in 0..<count { await Task.yield() }
                done.tick()
            }
        }
    }

    /// Nanoseconds per job, and allocation requests per job in the whole process
    /// (jemalloc only; the loop runs on the executor's threads, not this one).
    func measure(_ count: Int, _ ctx: StressContext, drive: (@Sendable () -> Void)?) throws(StressFailure) -> (
        Double, Double?
    ) {
        let done = Countdown(1)
        let before = Allocator.totalRequests()
        let started = ContinuousClock.now
        start(count, done)
        if let drive {
            let giveUp = ContinuousClock.now + ctx.mustHappen
            while done.count > 0, ContinuousClock.now < giveUp { drive() }
        }
        guard done.wait(ctx.mustHappen) else {
            ctx.record(ExecutorThroughputOutcome.lost)
            throw StressFailure("a loop of \(count) yields did not finish within \(ctx.mustHappen)")
        }
        let elapsed = (ContinuousClock.now - started).timeInterval * 1e9 / Double(count)
        let after = Allocator.totalRequests()
        return (elapsed, before.flatMap { before in after.map { Double($0 &- before) / Double(count) } })
    }
}

/// An actor on the executor under test, whose isolated loop re-enqueues on it at each yield.
private actor YieldingActor {
    private let executor: any SerialExecutor
    init(_ executor: any SerialExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func yield(_ count: Int, then done: Countdown) async {
        for _ in 0..<count { await Task.yield() }
        done.tick()
    }
}

/// What a run of `executorThroughput` observes; the raw values are the names reports use.
enum ExecutorThroughputOutcome: String, StressOutcome {
    case completed, lost

    var judgement: StressScenario.Judgement {
        switch self {
        case .completed: .acceptable("every job of the loop ran")
        case .lost: .forbidden("the loop stopped: a job never ran")
        }
    }
}
