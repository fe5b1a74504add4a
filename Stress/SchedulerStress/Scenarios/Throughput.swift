import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// The schedule→run cost per action, against the bare `DispatchQueue.async` the subject's
    /// ``BareBaseline`` names, measured in the same process, alternating so both see the same
    /// machine.
    public static let throughput = StressScenario(
        .throughput,
        """
        One thread schedules batches of actions and waits for the last; the same batches go through the bare \
        DispatchQueue.async a user would write instead (a serial queue's for a serial scheduler, the main queue's, a \
        concurrent queue's, or the scheduler's target queue's) in alternation. Reports the cost per action, its ratio \
        to the bare baseline, and allocations per action for both. Synchronous and trampoline subjects also report the \
        cost of one recursion step.
        """,
        outcomes: ThroughputOutcome.self,
        isBenchmark: true
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        let batch = 20_000
        let baselineQueue = bareQueue(ctx.subject, scheduler)
        try ctx.benchmark(unit: .action, operations: batch, completed: ThroughputOutcome.completed) {
            () throws(StressFailure) in
            let (baseline, baselineAllocations, _) = try measure(batch, ctx) { action in
                baselineQueue.async(execute: action)
            }
            let (subject, allocations, bytes) = try measure(batch, ctx, drive: scheduler as? any VirtualTimeScheduler) {
                action in scheduler.schedule(action)
            }
            return BenchmarkRound(
                nanoseconds: subject, baselineNanoseconds: baseline, allocations: allocations,
                baselineAllocations: baselineAllocations, bytes: bytes)
        }
        let capabilities = ctx.subject.capabilities
        if !capabilities.isDisjoint(with: [.synchronous, .trampoline, .virtualTime]) {
            ctx.setMetric(.recursionNanosecondsPerStep, try recursionStep(scheduler, ctx))
        }
    }

    /// The queue whose bare `async` the subject is compared with.
    private static func bareQueue(_ subject: ConformanceSubject, _ scheduler: any Scheduler) -> DispatchQueue {
        switch subject.baseline {
        case .mainQueue: .main
        case .concurrentQueue: DispatchQueue(label: "throughput baseline", attributes: .concurrent)
        case .targetQueue: subject.benchmarkTarget.map { $0(scheduler) } ?? DispatchQueue(label: "throughput baseline")
        default: DispatchQueue(label: "throughput baseline")
        }
    }

    /// Nanoseconds per action for one batch, and allocation requests and bytes per action
    /// on the scheduling thread (jemalloc only).
    private static func measure(
        _ count: Int, _ ctx: StressContext, drive: (any VirtualTimeScheduler)? = nil,
        _ submit: (@escaping @Sendable () -> Void) -> Void
    ) throws(StressFailure) -> (Double, Double?, Double?) {
        let remaining = Atomic<Int>(count)
        let done = Countdown(1)
        let action: @Sendable () -> Void = {
            if remaining.wrappingSubtract(1, ordering: .relaxed).newValue == 0 { done.tick() }
        }
        let requestsBefore = Allocator.totalRequests()
        let bytesBefore = Allocator.threadAllocatedBytes()
        let start = ContinuousClock.now
        for _ in 0..<count { submit(action) }
        let bytesAfter = Allocator.threadAllocatedBytes()
        drive?.stepAll()
        guard done.wait(ctx.mustHappen) else {
            ctx.record(ThroughputOutcome.lost, count: remaining.load(ordering: .relaxed))
            throw StressFailure(
                "\(remaining.load(ordering: .relaxed)) of \(count) actions did not run within \(ctx.mustHappen)")
        }
        let elapsed = (ContinuousClock.now - start).timeInterval * 1e9 / Double(count)
        let requestsAfter = Allocator.totalRequests()
        let allocations = requestsBefore.flatMap { before in requestsAfter.map { Double($0 &- before) / Double(count) }
        }
        let bytes = bytesBefore.flatMap { before in bytesAfter.map { Double($0 &- before) / Double(count) } }
        return (elapsed, allocations, bytes)
    }

    /// Nanoseconds per step of a recursion of up to 1,000,000 steps that stops early, after
    /// at least 16,384, once a quarter of the budget more has passed: a debug build under
    /// ThreadSanitizer takes 30 µs a step on the virtual-time scheduler, 30 s for the whole
    /// recursion, which a 0.1-second run must not wait for.
    private static func recursionStep(_ scheduler: any Scheduler, _ ctx: StressContext) throws(StressFailure) -> Double
    {
        let (most, least, checkEvery) = (1_000_000, 16_384, 1_024)
        let deadline = ContinuousClock.now + ctx.duration / 4
        let count = Atomic<Int>(0)
        let done = Countdown(1)
        let start = ContinuousClock.now
        scheduler.scheduleRecursive { reschedule in
            let step = count.wrappingAdd(1, ordering: .relaxed).newValue
            let enough = step >= most || (step >= least && step % checkEvery == 0 && ContinuousClock.now >= deadline)
            if enough { done.tick() } else { reschedule() }
        }
        (scheduler as? any VirtualTimeScheduler)?.stepAll()
        guard done.wait(ctx.mustHappen) else {
            throw StressFailure(
                "a recursion did not finish within \(ctx.mustHappen) (\(count.load(ordering: .relaxed)) steps ran)")
        }
        return (ContinuousClock.now - start).timeInterval * 1e9 / Double(count.load(ordering: .relaxed))
    }
}

/// What a run of `throughput` observes; the raw values are the names reports use.
public enum ThroughputOutcome: String, StressOutcome {
    case completed, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .completed: .acceptable("every action of the batch ran")
        case .lost: .forbidden("an action of the batch never ran")
        }
    }
}
