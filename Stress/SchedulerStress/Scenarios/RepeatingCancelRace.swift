import Foundation
import SchedulerConformance
import Schedulers
import Synchronization

extension StressScenario {
    /// Repeating timers disposed from other threads at random moments.
    static let repeatingCancelRace = StressScenario(
        "repeating-cancel-race",
        "Threads start repeating timers (1–5 ms) and dispose each from another thread after a random 0–30 ms. No tick may start after dispose() returned, beyond one already running. Latency is tick lateness against its schedule.",
        requires: .repeating, excludes: .virtualTime,
        outcomes: [
            .acceptable("stopped", "no tick started after dispose() returned"),
            .interesting("tick just after dispose returned", "one tick started within the grace period after dispose() returned"),
            .forbidden("tick after dispose returned", "a tick started later than the grace period after dispose() returned"),
        ]
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.make()
        let grace = UInt64((try? ctx.grace.checkedNanoseconds()) ?? 0)
        var round = 0
        while !ctx.timeIsUp {
            round += 1
            let round = round
            try ctx.onThreads(ctx.threads) { worker in
                var random = ctx.generator(round * 1_000 + worker)
                let timers = 4
                // Read by ticks on other threads while the disposer writes it: behind a lock.
                let disposedAt = Mutex([UInt64](repeating: 0, count: timers))
                let lateTicks = Atomic<Int>(0)
                let graceTicks = Atomic<Int>(0)
                let ticks = Atomic<Int>(0)
                var histogram = ctx.latency.makeWorkerHistogram()
                let latencies = Mutex(histogram)
                var handles: [(any Disposable)?] = []
                ctx.allocations.measuringBytes {
                    for timer in 0..<timers {
                        let interval = Duration.milliseconds(Int64.random(in: 1...5, using: &random))
                        let intervalNanoseconds = UInt64((try? interval.checkedNanoseconds()) ?? 1)
                        guard let start = try? scheduler.now.advanced(by: interval) else { handles.append(nil); continue }
                        let tick = Atomic<UInt64>(0)
                        handles.append(try? scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                            let now = StressContext.nanoseconds()
                            let disposed = disposedAt.withLock { $0[timer] }
                            if disposed != 0, now > disposed {
                                if now - disposed > grace { lateTicks.wrappingAdd(1, ordering: .relaxed) } else { graceTicks.wrappingAdd(1, ordering: .relaxed) }
                            }
                            let k = tick.wrappingAdd(1, ordering: .relaxed).oldValue
                            let due = start.nanoseconds &+ k &* intervalNanoseconds
                            if now > due { latencies.withLock { $0.record(now - due) } }
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
                let late = lateTicks.load(ordering: .relaxed)
                ctx.record("tick after dispose returned", count: late)
                ctx.record("tick just after dispose returned", count: graceTicks.load(ordering: .relaxed))
                ctx.record("stopped", count: timers - min(late, timers))
                ctx.addOperations(ticks.load(ordering: .relaxed))
                histogram = latencies.withLock { $0 }
                ctx.latency.merge(histogram)
            }
        }
    }
}
