import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

final class LIFOMutant: MutantBase, @unchecked Sendable {
    private let stack = Lock<[SchedulerAction]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        stack.withLock { $0.append(action) }
        queue.async {
            guard let next = self.stack.withLock({ $0.popLast() }) else { return }
            CurrentScheduler.run(as: self, next)
        }
        return BooleanDisposable()
    }
}

/// FIFO except that every 300th action is set aside and queued after the one that follows
/// it: a swap, three times in a thousand.
final class ReordersRarelyMutant: MutantBase, @unchecked Sendable {
    private let state = Lock<(count: Int, aside: SchedulerAction?)>((0, nil))

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let toQueue: [SchedulerAction] = state.withLock { state in
            state.count += 1
            if let aside = state.aside {
                state.aside = nil
                return [action, aside]
            }
            if state.count % 300 == 0 {
                state.aside = action
                return []
            }
            return [action]
        }
        for action in toQueue { _ = super.schedule(action) }
        return BooleanDisposable()
    }
}

/// Claims to be serial but runs every action on a thread of its own, so actions overlap
/// even when Dispatch's thread pool is saturated (as it is while tests run in parallel).
final class OverlappingMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        Thread { self.run(action, unless: disposable) }.start()
        return disposable
    }
}

/// Serial, except that one action in 500 is handed to a helper thread (a "fast lane"),
/// where it may run beside the serial ones.
final class OverlapsRarelyMutant: MutantBase, @unchecked Sendable {
    private let count = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard count.wrappingAdd(1, ordering: .relaxed).newValue % 500 == 0 else { return super.schedule(action) }
        let disposable = BooleanDisposable()
        Thread { self.run(action, unless: disposable) }.start()
        return disposable
    }
}

/// Serial until an action is slow: work scheduled while one has run for over a
/// millisecond goes to a helper thread instead of waiting behind it.
final class OverlapsWhenSlowMutant: MutantBase, @unchecked Sendable {
    private let runningSince = Atomic<UInt64>(0)

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        runningSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        defer { runningSince.store(0, ordering: .relaxed) }
        super.run(action, unless: disposable)
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let since = runningSince.load(ordering: .relaxed)
        guard since != 0, DispatchTime.now().uptimeNanoseconds - since > 1_000_000 else {
            return super.schedule(action)
        }
        let disposable = BooleanDisposable()
        Thread { super.run(action, unless: disposable) }.start()
        return disposable
    }
}

/// One lane per calling thread, drained in turn: each thread's actions stay in order, but
/// an action scheduled after another on a different thread may overtake it.
final class PerThreadLanesMutant: MutantBase, @unchecked Sendable {
    private struct Lanes {
        var order: [UInt] = []
        var lanes: [UInt: [SchedulerAction]] = [:]
        var next = 0

        mutating func popNext() -> SchedulerAction? {
            for _ in 0..<order.count {
                let lane = order[next % order.count]
                next += 1
                if var queue = lanes[lane], !queue.isEmpty {
                    let action = queue.removeFirst()
                    lanes[lane] = queue
                    return action
                }
            }
            return nil
        }
    }

    private let lanes = Lock(Lanes())

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let thread = ThreadProbe.id
        lanes.withLock { state in
            if state.lanes[thread] == nil { state.order.append(thread) }
            state.lanes[thread, default: []].append(action)
        }
        queue.async {
            guard let next = self.lanes.withLock({ $0.popNext() }) else { return }
            CurrentScheduler.run(as: self, next)
        }
        return BooleanDisposable()
    }
}

/// Claims to be asynchronous but runs inline when called from its own actions.
final class ReentrantMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value === self else { return super.schedule(action) }
        action()
        return nil
    }
}

/// Claims to be asynchronous, but takes a fast path when idle: with nothing queued, the
/// action runs inline on the caller's thread.
final class InlineWhenIdleMutant: MutantBase, @unchecked Sendable {
    private let pending = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if pending.load(ordering: .acquiring) == 0, CurrentScheduler.value == nil {
            CurrentScheduler.run(as: self, action)
            return nil
        }
        pending.wrappingAdd(1, ordering: .relaxed)
        return super.schedule {
            action()
            self.pending.wrappingSubtract(1, ordering: .relaxed)
        }
    }
}

/// Enqueues under a lock, but a caller that finds the lock taken parks its action in a
/// per-thread overflow buffer, flushed after that thread's next uncontended call: under
/// contention a producer's action runs after its later one.
final class ContendedOverflowMutant: MutantBase, @unchecked Sendable {
    private let lock = Lock<Void>(())
    private let overflow = Lock<[UInt: [SchedulerAction]]>([:])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let thread = ThreadProbe.id
        let entered: Bool? = lock.withLockIfAvailable { _ in
            // Bookkeeping under the lock, long enough that producers really collide.
            spin(20_000)
            return true
        }
        guard entered != nil else {
            overflow.withLock { $0[thread, default: []].append(action) }
            return BooleanDisposable()
        }
        let handle = super.schedule(action)
        for late in overflow.withLock({ $0.removeValue(forKey: thread) ?? [] }) { _ = super.schedule(late) }
        return handle
    }
}

final class LossyMutant: MutantBase, @unchecked Sendable {
    private let counter = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if counter.wrappingAdd(1, ordering: .relaxed).newValue % 97 == 0 { return BooleanDisposable() }
        return super.schedule(action)
    }
}

/// Runs one action in 300 twice when it was scheduled from a thread other than the one
/// that made the scheduler (a retry path that fires on a lost compare-and-swap).
final class DoublesAcrossThreadsMutant: MutantBase, @unchecked Sendable {
    private let creator = ThreadProbe.id
    private let counter = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = super.schedule(action)
        if ThreadProbe.id != creator, counter.wrappingAdd(1, ordering: .relaxed).newValue % 300 == 0 {
            _ = super.schedule(action)
        }
        return handle
    }
}

/// Claims concurrency but runs everything on one serial queue.
final class SerialClaimingConcurrencyMutant: MutantBase, @unchecked Sendable {
    init(_ name: String) {
        super.init(
            name,
            claims: [.asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent])
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let ordering: [Mutant] = [
        mutant("lifo", "runs queued actions last-in first-out", .ord1) { LIFOMutant($0) },
        mutant("reorders-rarely", "swaps one action in 300 with the next", .ord1) {
            ReordersRarelyMutant($0)
        },
        mutant("overlapping", "claims serial, runs each action on a thread of its own", .ord2) {
            OverlappingMutant($0)
        },
        mutant("overlaps-rarely", "sends one action in 500 to a concurrent queue", .ord2) {
            OverlapsRarelyMutant($0)
        },
        mutant("overlaps-when-slow", "runs new work elsewhere while an action is slow", .ord2) {
            OverlapsWhenSlowMutant($0)
        },
        mutant("per-thread-lanes", "one FIFO lane per calling thread, drained in turn", .ord6) {
            PerThreadLanesMutant($0)
        },
        mutant("contended-overflow", "under contention an action waits on an overflow list behind later ones", .ord3) {
            ContendedOverflowMutant($0)
        },
        mutant("reentrant", "runs nested actions inline", .ord4) { ReentrantMutant($0) },
        mutant("inline-when-idle", "runs inline on the caller's thread when nothing is queued", .ord5) {
            InlineWhenIdleMutant($0)
        },
        mutant("lossy", "loses one action in 97", .thr1) { LossyMutant($0) },
        mutant("doubles-across-threads", "runs one action in 300 scheduled from another thread twice", .thr1) {
            DoublesAcrossThreadsMutant($0)
        },
        mutant("serial-claiming-concurrency", "claims concurrency, runs serially", .thr4) {
            SerialClaimingConcurrencyMutant($0)
        },
    ]
}
