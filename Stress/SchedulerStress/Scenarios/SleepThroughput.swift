import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// The cost of one sleep on a manual clock (start, park, wake, resume), against tasks
    /// that park on a bare continuation the driver resumes in deadline order, measured in
    /// alternation.
    public static let sleepThroughput = StressScenario(
        .sleepThroughput,
        """
        Manual clocks: a batch of tasks (on the clock's own executor, when it has one) each sleeps until a distinct \
        instant, and the clock is run until every one woke; in alternation, the same tasks park on a bare \
        continuation with their deadline, and the driving thread resumes them in deadline order, which is the least a \
        manual clock can do. Reports the cost per \
        sleep, its ratio to the bare baseline, and allocations per sleep for both.
        """,
        kind: .clock,
        requires: .virtualTime,
        outcomes: SleepThroughputOutcome.self,
        isBenchmark: true
    ) { ctx throws(StressFailure) in
        let clock = ctx.subject.makeClock()
        guard let driver = clock.driver else {
            throw StressFailure("a clock claiming virtualTime has no driver to move it")
        }
        let executor = clock.sleeperExecutor ?? ProbeExecutor()
        // A thousand: a manual clock that keeps its sleepers in a list (the control one) pays n² to
        // find each next one, and the benchmark measures a sleep, not that.
        let sleeps = 1_000
        try ctx.benchmark(unit: .sleep, operations: sleeps, completed: SleepThroughputOutcome.completed) {
            () throws(StressFailure) in
            let (base, baseAllocations) = try SleepBatch.measure(sleeps, ctx, driver) { count, done in
                let parked = ParkedContinuations()
                for index in 0..<count {
                    Task(executorPreference: executor) {
                        await withUnsafeContinuation { parked.add($0, deadline: index + 1) }
                        done.tick()
                    }
                }
                // What the bare baseline's driver does instead of moving the clock.
                return { parked.resumeAll() }
            }
            let (mine, allocations) = try SleepBatch.measure(sleeps, ctx, driver) { count, done in
                let start = clock.now()
                for index in 0..<count {
                    Task(executorPreference: executor) {
                        try? await clock.sleepUntil(start + .nanoseconds(index + 1), nil)
                        done.tick()
                    }
                }
                return nil
            }
            return BenchmarkRound(
                nanoseconds: mine, baselineNanoseconds: base, allocations: allocations,
                baselineAllocations: baseAllocations)
        }
    }
}

/// One batch of sleeping tasks, driven until every one ended.
private enum SleepBatch {
    /// Nanoseconds per sleep, and allocation requests per sleep in the whole process
    /// (jemalloc only). `start` starts the tasks and returns what the driver should do
    /// besides running the clock (the baseline resumes its continuations).
    static func measure(
        _ count: Int, _ ctx: StressContext, _ driver: ClockUnderTest.Driver,
        start: (_ count: Int, _ done: Countdown) -> (@Sendable () -> Void)?
    ) throws(StressFailure) -> (Double, Double?) {
        try ctx.perOperation(count) { () throws(StressFailure) in
            let done = Countdown(count)
            let extra = start(count, done)
            let giveUp = ContinuousClock.now + ctx.mustHappen
            // Jobs resumed from another thread reach a driven executor late: run until all ended.
            while done.count > 0, ContinuousClock.now < giveUp {
                runUntilIdle(driver)
                extra?()
            }
            guard done.wait(ctx.mustHappen) else {
                ctx.record(SleepThroughputOutcome.lost, count: done.count)
                throw StressFailure("\(done.count) of \(count) sleeps did not end within \(ctx.mustHappen)")
            }
        }
    }

    /// Runs the clock until no sleeper is left, or advances it a millisecond when it has no
    /// `run` (each sleep of the batch is due within a microsecond).
    private static func runUntilIdle(_ driver: ClockUnderTest.Driver) {
        switch driver {
        case .blocking(let advance, let run):
            if let run { run() } else { advance(.milliseconds(1)) }
        case .async(let advance, let run):
            let moved = DispatchSemaphore(value: 0)
            Task(executorPreference: ProbeExecutor()) {
                if let run { await run() } else { await advance(.milliseconds(1)) }
                moved.signal()
            }
            _ = moved.wait(timeout: .now() + .seconds(10))
        }
    }
}

/// What a run of `sleepThroughput` observes; the raw values are the names reports use.
public enum SleepThroughputOutcome: String, StressOutcome {
    case completed, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .completed: .acceptable("every sleep of the batch ended")
        case .lost: .forbidden("a sleep never ended: its wake-up was lost")
        }
    }
}
