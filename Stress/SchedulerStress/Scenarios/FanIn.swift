import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// P producer threads × M actions per round onto one scheduler, round after round.
    public static let fanIn = StressScenario(
        .fanIn,
        """
        P producer threads schedule M actions each per round; every action must run exactly once, and on a serial \
        scheduler in per-producer order and never overlapping. Measures throughput and schedule→start latency.
        """,
        excludes: [.virtualTime, .threadConfined],
        outcomes: FanInOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        let serial = ctx.subject.capabilities.contains(.serial)
        let producers = ctx.threads
        let perProducer = 256
        let meter = OverlapMeter()
        while !ctx.timeIsUp {
            let total = producers * perProducer
            let runs = Slots<UInt8>(count: total, initial: 0)
            let scheduledAt = Slots<UInt64>(count: total, initial: 0)
            let startedAt = Slots<UInt64>(count: total, initial: 0)
            // Per producer: the sequence number of its last action that ran (serial only).
            let lastSeen = Slots<Int>(count: producers, initial: -1)
            let outOfOrder = Atomic<Int>(0)
            let allRuns = Atomic<Int>(0)
            let done = Countdown(total)
            try ctx.onThreads(producers) { producer in
                ctx.allocations.measuringBytes {
                    for sequence in 0..<perProducer {
                        let slot = producer * perProducer + sequence
                        scheduledAt[slot] = StressContext.nanoseconds()
                        scheduler.schedule {
                            startedAt[slot] = StressContext.nanoseconds()
                            if serial {
                                meter.enter()
                                if lastSeen[producer] != sequence - 1 { outOfOrder.wrappingAdd(1, ordering: .relaxed) }
                                lastSeen[producer] = sequence
                                // A short window inside, so overlapping actions can be seen.
                                spin(200)
                                meter.leave()
                            }
                            runs[slot] &+= 1
                            if allRuns.wrappingAdd(1, ordering: .relaxed).newValue <= total { done.tick() }
                        }
                    }
                }
            }
            guard done.wait(ctx.mustHappen) else {
                // Some actions never ran; the slots may still be written, so only count.
                ctx.record(FanInOutcome.lost, count: done.count)
                ctx.record(FanInOutcome.ranOnce, count: total - done.count)
                break
            }
            var histogram = ctx.latency.makeWorkerHistogram()
            var lost = 0
            var twice = 0
            for slot in 0..<total {
                switch runs[slot] {
                case 0: lost += 1
                case 1: histogram.record(startedAt[slot] &- scheduledAt[slot])
                default: twice += 1
                }
            }
            ctx.latency.merge(histogram)
            // A double run racing another on a concurrent scheduler can hide in its slot;
            // the atomic total still shows it.
            twice = max(twice, allRuns.load(ordering: .relaxed) - (total - lost))
            ctx.record(FanInOutcome.ranOnce, count: total - lost - twice)
            ctx.record(FanInOutcome.lost, count: lost)
            ctx.record(FanInOutcome.ranTwice, count: twice)
            ctx.record(FanInOutcome.outOfOrder, count: outOfOrder.load(ordering: .relaxed))
            ctx.addOperations(total - lost)
        }
        if serial && meter.maximum > 1 { ctx.record(FanInOutcome.overlapped, count: meter.maximum - 1) }
    }
}

/// What a run of `fanIn` observes; the raw values are the names reports use.
public enum FanInOutcome: String, StressOutcome {
    case ranOnce = "ran once"
    case lost
    case ranTwice = "ran twice"
    case outOfOrder = "out of order"
    case overlapped

    public var judgement: StressScenario.Judgement {
        switch self {
        case .ranOnce: .acceptable("the action ran exactly once")
        case .lost: .forbidden("the action never ran")
        case .ranTwice: .forbidden("the action ran more than once")
        case .outOfOrder: .forbidden("on a serial scheduler, an action ran before an earlier one of the same producer")
        case .overlapped: .forbidden("on a serial scheduler, two actions ran at the same time")
        }
    }
}
