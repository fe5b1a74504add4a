import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressScenario {
    /// Per-thread trampolines on many threads at once; a virtual-time scheduler driven while
    /// other threads schedule into it.
    public static let trampolineAndVirtualLoad = StressScenario(
        .trampolineAndVirtualLoad,
        """
        Trampoline subjects: every thread runs trampolines with nested fan-outs at once; each thread's nested actions \
        must run on that thread, in FIFO order. Virtual-time subjects: one thread steps and advances while others \
        schedule at random delays; actions must never run early or out of time order, and none may be lost.
        """,
        anyOf: [.trampoline, .virtualTime], excludes: .threadConfined,
        outcomes: TrampolineAndVirtualLoadOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        if let virtual = scheduler as? any VirtualTimeScheduler {
            try driveVirtual(virtual, ctx)
        } else {
            try churnTrampoline(scheduler, ctx)
        }
    }

    private static func churnTrampoline(_ scheduler: any Scheduler, _ ctx: StressContext) throws(StressFailure) {
        while !ctx.timeIsUp {
            try ctx.onThreads(ctx.threads) { _ in
                let me = ThreadProbe.id
                var inOrder = 0
                var wrongThread = 0
                var outOfOrder = 0
                var lost = 0
                let log = Lock<[Int]>([])
                let onThisThread = Lock<Bool>(true)
                ctx.allocations.measuringBytes {
                    for _ in 0..<50 {
                        log.withLock { $0.removeAll(keepingCapacity: true) }
                        scheduler.schedule {
                            for index in 0..<20 {
                                scheduler.schedule {
                                    if ThreadProbe.id != me { onThisThread.withLock { $0 = false } }
                                    log.withLock { $0.append(index) }
                                }
                            }
                        }
                        let order = log.withLock { $0 }
                        if order == Array(0..<20) {
                            inOrder += 20
                        } else if order.count < 20 {
                            lost += 20 - order.count
                        } else {
                            outOfOrder += 1
                        }
                        if !onThisThread.withLock({ $0 }) { wrongThread += 1 }
                    }
                }
                ctx.record(TrampolineAndVirtualLoadOutcome.inOrder, count: inOrder)
                ctx.record(TrampolineAndVirtualLoadOutcome.wrongThread, count: wrongThread)
                ctx.record(TrampolineAndVirtualLoadOutcome.outOfOrder, count: outOfOrder)
                ctx.record(TrampolineAndVirtualLoadOutcome.lost, count: lost)
                ctx.addOperations(50 * 21)
            }
        }
    }

    private static func driveVirtual(_ scheduler: any VirtualTimeScheduler, _ ctx: StressContext) throws(StressFailure)
    {
        let scheduled = Atomic<Int>(0)
        let ran = Atomic<Int>(0)
        let early = Atomic<Int>(0)
        let backwards = Atomic<Int>(0)
        let lastRun = Lock<SchedulerTime>(.zero)
        let producersDone = Countdown(ctx.threads)
        // Producers schedule while this thread drives; then it drains what is left.
        Thread {
            try? ctx.onThreads(ctx.threads) { producer in
                var random = ctx.generator(producer)
                while !ctx.timeIsUp {
                    let delay = Duration.microseconds(Int64.random(in: 0...5_000, using: &random))
                    guard let deadline = try? scheduler.now.advanced(by: delay) else { continue }
                    scheduled.wrappingAdd(1, ordering: .relaxed)
                    _ = try? scheduler.schedule(at: deadline) {
                        let now = scheduler.now
                        if now < deadline { early.wrappingAdd(1, ordering: .relaxed) }
                        let goesBack = lastRun.withLock { last in
                            defer { last = max(last, now) }
                            return now < last
                        }
                        if goesBack { backwards.wrappingAdd(1, ordering: .relaxed) }
                        ran.wrappingAdd(1, ordering: .relaxed)
                    }
                }
                producersDone.tick()
            }
        }.start()
        var random = ctx.generator(9_999)
        while producersDone.count > 0 {
            if Bool.random(using: &random) {
                scheduler.step()
            } else {
                try? scheduler.advance(by: .microseconds(Int64.random(in: 0...1_000, using: &random)))
            }
            if ctx.timeIsUp && producersDone.count > 0 { _ = producersDone.wait(ctx.mustHappen) }
        }
        scheduler.stepAll()
        let lost = scheduled.load(ordering: .relaxed) - ran.load(ordering: .relaxed)
        ctx.record(
            TrampolineAndVirtualLoadOutcome.inOrder,
            count: ran.load(ordering: .relaxed) - early.load(ordering: .relaxed) - backwards.load(ordering: .relaxed))
        ctx.record(TrampolineAndVirtualLoadOutcome.early, count: early.load(ordering: .relaxed))
        ctx.record(TrampolineAndVirtualLoadOutcome.outOfOrder, count: backwards.load(ordering: .relaxed))
        ctx.record(TrampolineAndVirtualLoadOutcome.lost, count: max(0, lost))
        ctx.addOperations(ran.load(ordering: .relaxed))
    }
}

/// What a run of `trampolineAndVirtualLoad` observes; the raw values are the names reports use.
public enum TrampolineAndVirtualLoadOutcome: String, StressOutcome {
    case inOrder = "in order"
    case wrongThread = "wrong thread"
    case outOfOrder = "out of order"
    case early, lost

    public var judgement: StressScenario.Judgement {
        switch self {
        case .inOrder: .acceptable("the action ran where and when it should")
        case .wrongThread: .forbidden("a trampoline action ran on another thread")
        case .outOfOrder: .forbidden("a trampoline action ran out of FIFO order, or virtual time went backwards")
        case .early: .forbidden("a virtual-time action ran before its time")
        case .lost: .forbidden("an action never ran")
        }
    }
}
