import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Repeating timers disposed from other threads at random moments.
    public static let repeatingCancelRace = StressScenario(
        .repeatingCancelRace,
        """
        Threads start repeating timers (1–5 ms) and dispose each from another thread after a random 0–30 ms. No tick \
        may start after dispose() returned, beyond one already running. Latency is tick lateness against its schedule.
        """,
        requires: .repeating, excludes: [.virtualTime, .threadConfined],
        outcomes: RepeatingCancelRaceOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        try ctx.eachRound { round throws(StressFailure) in
            try ctx.onThreads(ctx.threads) { worker in
                var random = ctx.generator(round * 1_000 + worker)
                let timers = 4
                // Read by ticks on other threads while the disposer writes it: behind a lock.
                let disposedAt = Lock([UInt64](repeating: 0, count: timers))
                let ticksAfterDispose = Lock([Int](repeating: 0, count: timers))
                let ticks = Atomic<Int>(0)
                var histogram = ctx.latency.makeWorkerHistogram()
                let latencies = Lock(histogram)
                var handles: [(any Disposable)?] = []
                ctx.allocations.measuringBytes {
                    for timer in 0..<timers {
                        let interval = Duration.milliseconds(Int64.random(in: 1...5, using: &random))
                        let intervalNanoseconds = UInt64((try? interval.checkedNanoseconds()) ?? 1)
                        guard let start = try? scheduler.now.advanced(by: interval) else {
                            handles.append(nil)
                            continue
                        }
                        handles.append(
                            try? scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                                let wall = StressContext.nanoseconds()
                                let disposed = disposedAt.withLock { $0[timer] }
                                if disposed != 0, wall > disposed { ticksAfterDispose.withLock { $0[timer] += 1 } }
                                // Lateness against the latest due time on the scheduler's own clock
                                // (missed ticks may be merged into one call, so no call count).
                                let now = scheduler.now.nanoseconds
                                if now >= start.nanoseconds {
                                    let due =
                                        start.nanoseconds + (now - start.nanoseconds) / intervalNanoseconds
                                        * intervalNanoseconds
                                    latencies.withLock { $0.record(now - due) }
                                }
                                ticks.wrappingAdd(1, ordering: .relaxed)
                            })
                    }
                }
                for timer in 0..<timers {
                    Thread.sleep(forTimeInterval: Double.random(in: 0...0.03, using: &random))
                    handles[timer]?.dispose()
                    disposedAt.withLock { $0[timer] = StressContext.nanoseconds() }
                }
                // Watch long enough for a tick that should not come to show itself.
                Thread.sleep(forTimeInterval: 0.005 + (ctx.grace * 3).timeInterval)
                for count in ticksAfterDispose.withLock({ $0 }) {
                    ctx.record(
                        count == 0
                            ? RepeatingCancelRaceOutcome.stopped
                            : count == 1 ? .oneTickAfterDisposeReturned : .ticksAfterDisposeReturned)
                }
                ctx.addOperations(ticks.load(ordering: .relaxed))
                histogram = latencies.withLock { $0 }
                ctx.latency.merge(histogram)
            }
            return true
        }
    }
}

/// What a run of `repeatingCancelRace` observes; the raw values are the names reports use.
public enum RepeatingCancelRaceOutcome: String, StressOutcome {
    case stopped
    case oneTickAfterDisposeReturned = "one tick after dispose returned"
    case ticksAfterDisposeReturned = "ticks after dispose returned"

    public var judgement: StressScenario.Judgement {
        switch self {
        case .stopped: .acceptable("no tick started after dispose() returned")
        case .oneTickAfterDisposeReturned:
            .interesting(
                """
                one tick started after dispose() returned (claimed before, or its thread preempted between the check \
                and the action)
                """
            )
        case .ticksAfterDisposeReturned:
            .forbidden("the timer kept ticking: more than one tick started after dispose() returned")
        }
    }
}
