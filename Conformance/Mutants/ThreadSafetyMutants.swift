import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// On release, "flushes" whatever it still holds by running it on a thread of its own, while
/// its own queue, which does not depend on the scheduler, goes on running the same work.
final class RunsPendingTwiceOnReleaseMutant: MutantBase, @unchecked Sendable {
    private final class Pending: Sendable {
        let actions = Lock<[Int: SchedulerAction]>([:])
        let next = Atomic<Int>(0)
    }

    private let pending = Pending()

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        enqueue(action, at: nil)
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        enqueue(action, at: deadline)
    }

    /// Queues work that refers to the pending list, not to the scheduler, so the scheduler
    /// can be freed while its work waits.
    private func enqueue(_ action: @escaping SchedulerAction, at deadline: SchedulerTime?) -> any Disposable {
        let pending = self.pending
        let id = pending.next.wrappingAdd(1, ordering: .relaxed).oldValue
        pending.actions.withLock { $0[id] = action }
        let disposable = BooleanDisposable()
        let work: @Sendable () -> Void = {
            guard !disposable.isDisposed else { return }
            action()
            _ = pending.actions.withLock { $0.removeValue(forKey: id) }
        }
        if let deadline {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)), execute: work)
        } else {
            queue.async(execute: work)
        }
        return disposable
    }

    deinit {
        let leftovers = pending.actions.withLock { Array($0.values) }
        Thread { for action in leftovers { action() } }.start()
    }
}

/// Keeps its repeating timers (or its delayed actions) in a table driven by one timer source,
/// and registers one by copying the table and writing it back with the new entry (two
/// critical sections, as code made "thread-safe" one access at a time is): one registered by
/// another thread in between is lost, and never runs.
final class LossyTimerRegistryMutant: MutantBase, @unchecked Sendable {
    /// Which work goes through the table; the other kind is the base's, correct.
    enum Kind { case repeating, delayed }

    private struct Entry: @unchecked Sendable {
        let action: SchedulerAction
        let flag: BooleanDisposable
        let start: UInt64
        let repeats: Bool
        /// Set once a delayed entry ran: a stale copy written back cannot run it again.
        let ran = BooleanDisposable()
    }

    private let kind: Kind
    private let table = Lock<[Entry]>([])
    private let driver = Lock<(any DispatchSourceTimer)?>(nil)

    init(_ name: String, _ kind: Kind) {
        self.kind = kind
        super.init(name)
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard kind == .delayed else { return try super.schedule(at: deadline, action) }
        return register(Entry(action: action, flag: BooleanDisposable(), start: deadline.nanoseconds, repeats: false))
    }

    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        guard kind == .repeating else {
            return try super.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
        }
        _ = try RepeatSpec(interval: interval, leeway: leeway)
        return register(Entry(action: action, flag: BooleanDisposable(), start: deadline.nanoseconds, repeats: true))
    }

    private func register(_ entry: Entry) -> any Disposable {
        let copy = table.withLock { $0 }
        // The window in which another registration is lost.
        usleep(20)
        table.withLock { $0 = copy + [entry] }
        startDriver()
        return entry.flag
    }

    /// One source, every millisecond, runs every registered entry that is due; a delayed one
    /// only once.
    private func startDriver() {
        driver.withLock { driver in
            guard driver == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now(), repeating: .milliseconds(1), leeway: .nanoseconds(0))
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let now = DispatchTime.now().uptimeNanoseconds
                let due = table.withLock { $0.filter { $0.start <= now && !$0.ran.isDisposed } }
                    .sorted { $0.start < $1.start }
                for entry in due {
                    run(entry.action, unless: entry.flag)
                    if !entry.repeats { entry.ran.dispose() }
                }
                table.withLock { $0.removeAll { $0.ran.isDisposed } }
            }
            source.resume()
            driver = source
        }
    }

    deinit { driver.withLock { $0?.cancel() } }
}

/// A queue scheduler that counts each calling thread's actions in a registry keyed by the
/// thread, which nobody prunes: every thread that ever scheduled leaves its entry behind.
final class ThreadRegistryMutant: MutantBase, @unchecked Sendable {
    private final class Tally: Sendable {
        let scheduled = Atomic<Int>(0)
    }

    private let registry = Lock<[Int: Tally]>([:])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let thread = CorePinning.currentThreadID.map(Int.init) ?? 0
        let tally = registry.withLock { registry in
            if let tally = registry[thread] { return tally }
            let tally = Tally()
            registry[thread] = tally
            return tally
        }
        tally.scheduled.add(1, ordering: .relaxed)
        return super.schedule(action)
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let threadSafety: [Mutant] = [
        mutant("thread-registry", "keeps an entry per calling thread in a registry nobody prunes", .thr6) {
            ThreadRegistryMutant($0)
        },
        mutant("lossy-timer-registry", "registers repeating timers in two critical sections, losing racing ones", .thr1)
        {
            LossyTimerRegistryMutant($0, .repeating)
        },
        mutant(
            "lossy-delayed-registry", "registers delayed actions in two critical sections, losing racing ones", .thr1
        ) { LossyTimerRegistryMutant($0, .delayed) },
        mutant("runs-pending-twice-on-release", "on release runs pending work that its queue runs too", .thr2) {
            RunsPendingTwiceOnReleaseMutant($0)
        },
    ]
}
