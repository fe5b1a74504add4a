import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Thousands of one-shot timers with random delays.
    public static let timerStorm = StressScenario(
        .timerStorm,
        """
        Producer threads arm hundreds of one-shot timers each with random delays up to 20 ms. No timer may fire \
        before its deadline on the scheduler's own clock, none may be lost. Latency is lateness past the deadline.
        """,
        requires: .timers, excludes: [.synchronous, .virtualTime, .threadConfined],
        outcomes: TimerStormOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        try ctx.eachRound { round throws(StressFailure) in
            let perProducer = 250
            let total = ctx.threads * perProducer
            let fired = Countdown(total)
            let early = Atomic<Int>(0)
            let lateness = Slots<UInt64>(count: total, initial: .max)
            let refused = Atomic<Int>(0)
            try ctx.onThreads(ctx.threads) { producer in
                var random = ctx.generator(round * 1_000 + producer)
                ctx.allocations.measuringBytes {
                    for index in 0..<perProducer {
                        let slot = producer * perProducer + index
                        let delay = Duration.microseconds(Int64.random(in: 0...20_000, using: &random))
                        do {
                            let deadline = try scheduler.now.advanced(by: delay)
                            try scheduler.schedule(at: deadline) {
                                let now = scheduler.now
                                if now < deadline {
                                    early.wrappingAdd(1, ordering: .relaxed)
                                } else {
                                    lateness[slot] = now.nanoseconds - deadline.nanoseconds
                                }
                                fired.tick()
                            }
                        } catch {
                            refused.wrappingAdd(1, ordering: .relaxed)
                            fired.tick()
                        }
                    }
                }
            }
            let complete = fired.wait(ctx.mustHappen + .milliseconds(20))
            let lost = complete ? 0 : fired.count
            if complete {
                // Read only once every timer has fired: before that, slots are still written.
                var histogram = ctx.latency.makeWorkerHistogram()
                for slot in 0..<total where lateness[slot] != .max { histogram.record(lateness[slot]) }
                ctx.latency.merge(histogram)
            }
            let earlyCount = early.load(ordering: .relaxed)
            ctx.record(TimerStormOutcome.early, count: earlyCount)
            ctx.record(TimerStormOutcome.lost, count: lost)
            ctx.record(TimerStormOutcome.onTime, count: total - earlyCount - lost - refused.load(ordering: .relaxed))
            ctx.addOperations(total - lost)
            if refused.load(ordering: .relaxed) > 0 {
                throw StressFailure(
                    "the scheduler refused \(refused.load(ordering: .relaxed)) timers though it claims timers")
            }
            return complete
        }
    }
}

/// What a run of `timerStorm` observes; the raw values are the names reports use.
public enum TimerStormOutcome: String, StressOutcome {
    case onTime = "on time"
    case early, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .onTime: .acceptable("fired at or after its deadline")
        case .early: .forbidden("fired before its deadline")
        case .lost: .forbidden("never fired")
        }
    }
}
