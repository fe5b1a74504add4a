import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

extension StressScenario {
    /// Schedule on one thread, dispose on another, over and over.
    public static let disposeRace = StressScenario(
        .disposeRace,
        """
        A producer schedules actions that a disposer thread disposes at once. On serial schedulers every other batch \
        is disposed while the scheduler is held busy, so none of that batch may ever run; in the other batches an \
        action may win the race, and one starting after its dispose() returned is counted as interesting (a thread \
        preempted between claiming and starting looks the same from outside).
        """,
        requires: [.cancellation, .asynchronous], excludes: [.virtualTime, .threadConfined],
        outcomes: DisposeRaceOutcome.self
    ) { ctx throws(StressFailure) in
        let scheduler = ctx.subject.makeScheduler()
        let serial = ctx.subject.capabilities.contains(.serial)
        let pairs = max(1, ctx.threads / 2)
        let batch = 128
        try ctx.eachRound { round throws(StressFailure) in
            let held = serial && round % 2 == 0
            let gate = DispatchSemaphore(value: 0)
            defer { gate.signal() }
            if held {
                let started = Countdown(1)
                scheduler.schedule {
                    started.tick()
                    _ = gate.wait(timeout: .now() + .seconds(10))
                }
                guard started.wait(ctx.mustHappen) else {
                    throw StressFailure("a blocking action did not start within \(ctx.mustHappen)")
                }
            }
            let total = pairs * batch
            let startedAt = Slots<UInt64>(count: total, initial: 0)
            let runs = Slots<UInt8>(count: total, initial: 0)
            let disposedAt = Slots<UInt64>(count: total, initial: 0)
            let channels = (0..<pairs).map { _ in HandleChannel() }
            try ctx.onThreads(pairs * 2) { worker in
                let pair = worker / 2
                if worker % 2 == 0 {
                    ctx.allocations.measuringBytes {
                        for index in 0..<batch {
                            let slot = pair * batch + index
                            let handle = scheduler.schedule {
                                startedAt[slot] = StressContext.nanoseconds()
                                runs[slot] &+= 1
                            }
                            channels[pair].send(slot, handle)
                        }
                    }
                } else {
                    for _ in 0..<batch {
                        guard let (slot, handle) = channels[pair].receive(within: ctx.mustHappen) else { return }
                        handle?.dispose()
                        disposedAt[slot] = StressContext.nanoseconds()
                    }
                }
            }
            if held {
                // Keep the scheduler busy past the grace period after the last dispose, so
                // that an action run despite its disposal starts measurably late.
                Thread.sleep(forTimeInterval: (ctx.grace * 2).timeInterval)
            }
            gate.signal()
            // Everything that will ever run has run once a sentinel behind it ran (serial),
            // or after the grace period (otherwise).
            try settle(scheduler, serial: serial, ctx: ctx)
            var histogram = ctx.latency.makeWorkerHistogram()
            for slot in 0..<total {
                switch runs[slot] {
                case 0: ctx.record(DisposeRaceOutcome.notRan)
                case 1:
                    let start = startedAt[slot]
                    let disposed = disposedAt[slot]
                    if held && disposed != 0 {
                        ctx.record(DisposeRaceOutcome.ranThoughDisposedWhileHeld)
                    } else if disposed == 0 || start <= disposed {
                        ctx.record(DisposeRaceOutcome.ran)
                    } else {
                        ctx.record(DisposeRaceOutcome.startedAfterDisposeReturned)
                    }
                    if disposed != 0, start > disposed { histogram.record(start - disposed) }
                default: ctx.record(DisposeRaceOutcome.ranTwice)
                }
            }
            ctx.latency.merge(histogram)
            ctx.addOperations(total)
            return true
        }
    }
}

/// Hands handles from a producer thread to its disposer thread, in order.
private final class HandleChannel: Sendable {
    private let items = Lock<[(slot: Int, handle: (any Disposable)?)]>([])
    private let available = DispatchSemaphore(value: 0)

    func send(_ slot: Int, _ handle: (any Disposable)?) {
        items.withLock { $0.append((slot, handle)) }
        available.signal()
    }

    func receive(within bound: Duration) -> (slot: Int, handle: (any Disposable)?)? {
        let nanoseconds = Int((try? bound.checkedNanoseconds()) ?? Int64(Int.max))
        guard available.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
        return items.withLock { $0.removeFirst() }
    }
}

/// Returns once everything scheduled so far on `scheduler` has run or never will: a
/// sentinel behind it on a serial scheduler, the grace period otherwise.
func settle(_ scheduler: any Scheduler, serial: Bool, ctx: StressContext) throws(StressFailure) {
    if serial {
        let sentinel = Countdown(1)
        scheduler.schedule { sentinel.tick() }
        guard sentinel.wait(ctx.mustHappen) else {
            throw StressFailure("a sentinel action did not run within \(ctx.mustHappen)")
        }
    } else {
        // No sentinel can prove it on a concurrent scheduler: watch a quiet window instead.
        Thread.sleep(forTimeInterval: (ctx.grace * 2).timeInterval)
    }
}

/// What a run of `disposeRace` observes; the raw values are the names reports use.
public enum DisposeRaceOutcome: String, StressOutcome {
    case notRan = "not ran"
    case ran
    case startedAfterDisposeReturned = "started after dispose returned"
    case ranThoughDisposedWhileHeld = "ran though disposed while held"
    case ranTwice = "ran twice"

    public var judgement: StressScenario.Judgement {
        switch self {
        case .notRan: .acceptable("dispose() won: the action never ran")
        case .ran: .acceptable("the action started before dispose() returned")
        case .startedAfterDisposeReturned:
            .interesting(
                """
                started after dispose() returned while the scheduler was free: the race was lost by a hair, or the \
                scheduler checks disposal late
                """
            )
        case .ranThoughDisposedWhileHeld:
            .forbidden(
                "disposed while the scheduler was busy with another action, so before it could start, yet it ran")
        case .ranTwice: .forbidden("the action ran more than once")
        }
    }
}
