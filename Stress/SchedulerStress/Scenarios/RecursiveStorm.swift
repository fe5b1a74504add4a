import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Many recursive chains at once, a third of them disposed from another thread mid-way.
    public static let recursiveStorm = StressScenario(
        .recursiveStorm,
        """
        Concurrent recursive chains each reschedule themselves to a random depth; a third are disposed from another \
        thread half-way. No run may start after its chain's dispose() returned, no undisposed chain may lose a \
        reschedule, and the stack may not grow. Latency is reschedule→run.
        """,
        excludes: [.virtualTime, .threadConfined],
        outcomes: RecursiveStormOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        // Synchronous and trampoline recursion finishes inside scheduleRecursive, before its
        // handle exists: only asynchronous chains can be disposed from outside mid-way.
        let disposable = ctx.subject.capabilities.contains(.asynchronous)
        let meter = StackMeter()
        try ctx.eachRound { round throws(StressFailure) in
            let chains = ctx.threads
            try ctx.onThreads(chains) { chain in
                var random = ctx.generator(round * 1_000 + chain)
                let depth = Int.random(in: 500...5_000, using: &random)
                let disposeAt = disposable && chain % 3 == 0 ? depth / 2 : nil
                let runs = Atomic<Int>(0)
                let disposedAt = Atomic<UInt64>(0)
                let lastRequest = Atomic<UInt64>(0)
                let runsAfterDispose = Atomic<Int>(0)
                let finished = Countdown(1)
                let reachedDisposePoint = Countdown(1)
                let handles = Lock<(any Disposable)?>(nil)
                let handleStored = Countdown(1)
                let latencies = Lock(ctx.latency.makeWorkerHistogram())
                let handle = ctx.allocations.measuringBytes {
                    scheduler.scheduleRecursive { reschedule in
                        let now = StressContext.nanoseconds()
                        meter.sample()
                        let disposed = disposedAt.load(ordering: .acquiring)
                        if disposed != 0, now > disposed { runsAfterDispose.wrappingAdd(1, ordering: .relaxed) }
                        let requested = lastRequest.load(ordering: .relaxed)
                        if requested != 0 { latencies.withLock { $0.record(now &- requested) } }
                        let run = runs.wrappingAdd(1, ordering: .relaxed).newValue
                        if run == disposeAt { reachedDisposePoint.tick() }
                        guard run < depth, !meter.exceeded else { return finished.tick() }
                        lastRequest.store(StressContext.nanoseconds(), ordering: .relaxed)
                        reschedule()
                    }
                }
                handles.withLock { $0 = handle }
                handleStored.tick()
                if disposeAt != nil {
                    // Another thread disposes once the chain is half-way.
                    let disposed = Countdown(1)
                    Thread {
                        if reachedDisposePoint.wait(ctx.mustHappen), handleStored.wait(ctx.mustHappen) {
                            handles.withLock { $0 }?.dispose()
                            disposedAt.store(StressContext.nanoseconds(), ordering: .releasing)
                        }
                        disposed.tick()
                    }.start()
                    guard reachedDisposePoint.wait(ctx.mustHappen), disposed.wait(ctx.mustHappen) else {
                        ctx.record(RecursiveStormOutcome.lostReschedule)
                        return
                    }
                    // Watch a while for runs that should not come (a quiet window: nothing
                    // else can prove their absence on every kind of scheduler).
                    Thread.sleep(forTimeInterval: (ctx.grace * 3).timeInterval)
                    let after = runsAfterDispose.load(ordering: .relaxed)
                    ctx.record(
                        after == 0
                            ? RecursiveStormOutcome.chainStopped
                            : after == 1 ? .oneRunAfterDisposeReturned : .runsAfterDisposeReturned)
                } else if finished.wait(ctx.mustHappen) {
                    ctx.record(RecursiveStormOutcome.chainCompleted)
                } else {
                    ctx.record(RecursiveStormOutcome.lostReschedule)
                }
                ctx.addOperations(runs.load(ordering: .relaxed))
                ctx.latency.merge(latencies.withLock { $0 })
            }
            return true
        }
        if meter.exceeded { ctx.record(RecursiveStormOutcome.stackGrew) }
        ctx.setMetric(.maxStackGrowthBytes, Double(meter.growth))
    }
}

/// What a run of `recursiveStorm` observes; the raw values are the names reports use.
public enum RecursiveStormOutcome: String, StressOutcome {
    case chainCompleted = "chain completed"
    case chainStopped = "chain stopped"
    case oneRunAfterDisposeReturned = "one run after dispose returned"
    case runsAfterDisposeReturned = "runs after dispose returned"
    case lostReschedule = "lost reschedule"
    case stackGrew = "stack grew"

    public var judgement: StressScenario.Judgement {
        switch self {
        case .chainCompleted: .acceptable("an undisposed chain reached its depth")
        case .chainStopped: .acceptable("a disposed chain ran no more after disposal")
        case .oneRunAfterDisposeReturned:
            .interesting(
                """
                one run started after dispose() returned: it had passed its disposal check before (or its thread was \
                preempted between the check and the block)
                """
            )
        case .runsAfterDisposeReturned:
            .forbidden("a disposed chain kept running: more than one run started after dispose() returned")
        case .lostReschedule: .forbidden("an undisposed chain stopped short of its depth")
        case .stackGrew: .forbidden("the stack grew with the depth of recursion")
        }
    }
}
