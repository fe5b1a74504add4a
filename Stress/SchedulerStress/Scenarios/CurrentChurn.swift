import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Nested hops between schedulers on many threads.
    public static let currentChurn = StressScenario(
        .currentChurn,
        """
        Many chains hop A → B → A … between two schedulers of the subject, and inside each hop run a nested action as \
        a third scheduler. Every action must see its own scheduler as current, and the nested run must restore it.
        """,
        requires: .tracksCurrent, excludes: [.virtualTime, .threadConfined],
        outcomes: CurrentChurnOutcome.self
    ) { ctx throws(StressFailure) in
        let a = ctx.subject.makeScheduler()
        let b = ctx.subject.makeScheduler()
        let nested = TestScheduler(name: "current-churn nested")
        let hopsPerChain = 200
        while !ctx.timeIsUp {
            let chains = ctx.threads * 2
            let done = Countdown(chains)
            let right = Atomic<Int>(0)
            let wrong = Atomic<Int>(0)
            let unrestored = Atomic<Int>(0)
            let latencies = Lock(ctx.latency.makeWorkerHistogram())
            @Sendable func hop(_ remaining: Int, on scheduler: any Scheduler, other: any Scheduler, requested: UInt64) {
                scheduler.schedule {
                    let now = StressContext.nanoseconds()
                    latencies.withLock { $0.record(now &- requested) }
                    if CurrentScheduler.value === scheduler {
                        right.wrappingAdd(1, ordering: .relaxed)
                    } else {
                        wrong.wrappingAdd(1, ordering: .relaxed)
                    }
                    CurrentScheduler.run(as: nested) {}
                    if CurrentScheduler.value !== scheduler { unrestored.wrappingAdd(1, ordering: .relaxed) }
                    if remaining == 0 {
                        done.tick()
                    } else {
                        hop(remaining - 1, on: other, other: scheduler, requested: StressContext.nanoseconds())
                    }
                }
            }
            try ctx.onThreads(ctx.threads) { worker in
                ctx.allocations.measuringBytes {
                    hop(hopsPerChain, on: a, other: b, requested: StressContext.nanoseconds())
                    hop(hopsPerChain, on: b, other: a, requested: StressContext.nanoseconds())
                }
            }
            guard done.wait(ctx.mustHappen) else {
                throw StressFailure("\(done.count) of \(chains) hop chains did not finish within \(ctx.mustHappen)")
            }
            ctx.record(CurrentChurnOutcome.rightScheduler, count: right.load(ordering: .relaxed))
            ctx.record(CurrentChurnOutcome.wrongScheduler, count: wrong.load(ordering: .relaxed))
            ctx.record(CurrentChurnOutcome.notRestored, count: unrestored.load(ordering: .relaxed))
            ctx.addOperations(chains * (hopsPerChain + 1))
            ctx.latency.merge(latencies.withLock { $0 })
        }
    }
}

/// What a run of `currentChurn` observes; the raw values are the names reports use.
public enum CurrentChurnOutcome: String, StressOutcome {
    case rightScheduler = "right scheduler"
    case wrongScheduler = "wrong scheduler"
    case notRestored = "not restored"

    public var judgement: StressScenario.Judgement {
        switch self {
        case .rightScheduler:
            .acceptable("the action saw its own scheduler as current and it was restored after nesting")
        case .wrongScheduler: .forbidden("an action saw another scheduler, or none, as current")
        case .notRestored: .forbidden("after a nested run as another scheduler, the current scheduler was not restored")
        }
    }
}
