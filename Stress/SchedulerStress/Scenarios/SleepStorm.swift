import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

extension StressScenario {
    /// Many tasks sleeping on a clock from many threads, a quarter of them cancelled.
    public static let sleepStorm = StressScenario(
        .sleepStorm,
        """
        Threads start tasks that sleep until now + 0.5–3 ms (a manual clock is advanced by 100 µs steps meanwhile) \
        and cancel a quarter of them at a random moment. No sleep may return before its deadline or be lost, a \
        cancelled one must end, and every task's memory must be freed once all have ended. Latency is how late a real \
        clock's sleeper woke.
        """,
        kind: .clock,
        excludes: .synchronous,
        outcomes: SleepStormOutcome.self
    ) { ctx throws(StressFailure) in
        let clock = ctx.subject.makeClock()
        // Sleepers run on the global executor, as an app's do: the suite's ProbeExecutor runs
        // one job at a time, made for a rule's few tasks, not for a storm's hundreds.
        let executor = clock.sleeperExecutor
        let live = LiveCounter()
        let perThread = 40
        try ctx.eachRound { round throws(StressFailure) in
            let remaining = Countdown(ctx.threads * perThread)
            let driving = Driver(clock, until: remaining)
            try ctx.onThreads(ctx.threads) { worker in
                var random = ctx.generator(round * 1_000 + worker)
                var histogram = ctx.latency.makeWorkerHistogram()
                let latencies = Lock(histogram)
                for index in 0..<perThread {
                    let span = Duration.microseconds(Int64.random(in: 500...3_000, using: &random))
                    let cancel = index % 4 == 0
                    let token = live.token()
                    let task = Task(executorPreference: executor) { @Sendable in
                        defer {
                            blackHole(token)
                            remaining.tick()
                        }
                        let deadline = clock.now() + span
                        do {
                            try await clock.sleepUntil(deadline, nil)
                            let late = clock.now() - deadline
                            if late < .zero {
                                ctx.record(SleepStormOutcome.early)
                            } else {
                                ctx.record(cancel ? SleepStormOutcome.wokeDespiteCancel : .woke)
                                if clock.driver == nil {
                                    latencies.withLock { $0.record(UInt64(late.attoseconds / 1_000_000_000)) }
                                }
                            }
                        } catch is CancellationError {
                            ctx.record(SleepStormOutcome.cancelled)
                        } catch {
                            ctx.record(SleepStormOutcome.threw)
                        }
                    }
                    if cancel {
                        spin(Int.random(in: 0...200_000, using: &random))
                        task.cancel()
                    }
                }
                histogram = latencies.withLock { $0 }
                ctx.latency.merge(histogram)
            }
            driving.finish()
            guard remaining.wait(ctx.mustHappen) else {
                ctx.record(SleepStormOutcome.lost, count: remaining.count)
                throw StressFailure("\(remaining.count) sleeps did not end within \(ctx.mustHappen)")
            }
            ctx.addOperations(ctx.threads * perThread)
            return true
        }
        if !live.waitForNone(within: ctx.grace * 50) {
            ctx.record(SleepStormOutcome.leaked, count: live.count)
        }
    }
}

/// Moves a manual clock by 100 µs steps on a thread of its own until `remaining` reaches
/// zero; a real clock needs nothing.
private final class Driver: Sendable {
    private let done = Signal()

    init(_ clock: ClockUnderTest, until remaining: Countdown) {
        guard let driver = clock.driver else {
            done.fire()
            return
        }
        let done = self.done
        Thread {
            let step = Duration.microseconds(100)
            let stop = ContinuousClock.now + .seconds(30)
            while remaining.count > 0, ContinuousClock.now < stop {
                switch driver {
                case .blocking(let advance, _):
                    advance(step)
                case .async(let advance, _):
                    let moved = DispatchSemaphore(value: 0)
                    Task(executorPreference: ProbeExecutor()) {
                        await advance(step)
                        moved.signal()
                    }
                    // A hung advance ends the driving; the sleeps it strands are then lost.
                    if moved.wait(timeout: .now() + .seconds(10)) == .timedOut { break }
                }
            }
            done.fire()
        }.start()
    }

    /// Waits for the driving thread to stop (it does once every sleep has ended).
    func finish() { _ = done.wait(.seconds(60)) }
}

/// What a run of `sleepStorm` observes; the raw values are the names reports use.
public enum SleepStormOutcome: String, StressOutcome {
    case woke, cancelled
    case wokeDespiteCancel = "woke despite cancel"
    case early, lost, threw, leaked

    public var judgement: StressScenario.Judgement {
        switch self {
        case .woke: .acceptable("the sleep returned at or after its deadline")
        case .cancelled: .acceptable("a cancelled sleep threw CancellationError")
        case .wokeDespiteCancel:
            .interesting("a sleep cancelled close to its deadline returned normally (the deadline won the race)")
        case .early: .forbidden("a sleep returned before its deadline")
        case .lost: .forbidden("a sleep never ended: its resume was lost")
        case .threw: .forbidden("a sleep threw something other than CancellationError")
        case .leaked: .forbidden("a task's memory was still alive after every task ended")
        }
    }
}
