import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

final class EarlyTimersMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let now = self.now
        let early =
            deadline > now
            ? SchedulerTime.zero.advancedSaturating(by: (now.nanoseconds + deadline.nanoseconds) / 2) : deadline
        return try super.schedule(at: early, action)
    }
}

/// Converts deadlines to a 10 ms timer wheel by rounding down: up to 10 ms early.
final class EarlyByRoundingMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let slot: UInt64 = 10_000_000
        return try super.schedule(
            at: SchedulerTime.zero.advancedSaturating(by: deadline.nanoseconds / slot * slot), action)
    }
}

/// Reads the clock once as each action starts and answers `now` from that reading while the
/// action runs on its queue (a clock read saved per action): a deadline an action builds
/// after working a while starts from the past, and fires early by the suite's clock.
final class NowCachedPerActionMutant: MutantBase, @unchecked Sendable {
    private let cache = Lock<(thread: UInt, now: SchedulerTime)?>(nil)

    override var now: SchedulerTime {
        if let cached = cache.withLock({ $0 }), cached.thread == ThreadProbe.id { return cached.now }
        return super.now
    }

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        cache.withLock { $0 = (ThreadProbe.id, super.now) }
        super.run(action, unless: disposable)
        cache.withLock { $0 = nil }
    }
}

final class LateTimersMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        try super.schedule(at: deadline.advancedSaturating(by: 400_000_000), action)
    }
}

/// A clock running 25 % fast: timers agree with `now`, so every one fires early by the
/// suite's clock while looking punctual by its own.
final class FastClockMutant: MutantBase, @unchecked Sendable {
    private let origin = DispatchTime.now().uptimeNanoseconds

    override var now: SchedulerTime {
        SchedulerTime.zero.advancedSaturating(by: origin + (DispatchTime.now().uptimeNanoseconds - origin) / 4 * 5)
    }

    /// The real uptime at which this clock reads `time`.
    private func uptime(_ time: SchedulerTime) -> SchedulerTime {
        guard time.nanoseconds > origin else { return time }
        return SchedulerTime.zero.advancedSaturating(by: origin + (time.nanoseconds - origin) / 5 * 4)
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        try super.schedule(at: uptime(deadline), action)
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        super.makeTimer(deadline: uptime(deadline), spec: spec, tick)
    }
}

/// The wall clock the ``WallClockDeadlinesMutant`` reads: uptime plus an offset that its
/// subject's test hook moves.
enum MutantWallClock {
    static let offset = Atomic<Int64>(0)
    static var now: Int64 { Int64(DispatchTime.now().uptimeNanoseconds) + offset.load(ordering: .acquiring) }
    static func step(_ by: Duration) {
        offset.wrappingAdd((try? by.checkedNanoseconds()) ?? 0, ordering: .acquiringAndReleasing)
    }
}

/// A monotonic `now`, but timers are kept as wall-clock deadlines and fired by a poller:
/// a jump of the wall clock fires them early or stalls them.
final class WallClockDeadlinesMutant: MutantBase, @unchecked Sendable {
    private struct Timer {
        let wallDeadline: Int64
        let action: SchedulerAction
        let disposable: BooleanDisposable
    }

    private let timers = Lock<[Timer]>([])

    override init(
        _ name: String,
        claims: SchedulerCapabilities = [.asynchronous, .serial, .cancellation, .timers, .tracksCurrent],
        queue: DispatchQueue? = nil
    ) {
        super.init(name, claims: claims, queue: queue)
        let poller = Thread { [weak self] in
            while let self {
                self.fireDue()
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        poller.start()
    }

    private func fireDue() {
        let wallNow = MutantWallClock.now
        let due = timers.withLock { timers in
            let due = timers.filter { $0.wallDeadline <= wallNow }
            timers.removeAll { $0.wallDeadline <= wallNow }
            return due
        }
        for timer in due { queue.async { self.run(timer.action, unless: timer.disposable) } }
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let delay = Int64(deadline.nanoseconds) - Int64(now.nanoseconds)
        let disposable = BooleanDisposable()
        timers.withLock {
            $0.append(Timer(wallDeadline: MutantWallClock.now + delay, action: action, disposable: disposable))
        }
        return disposable
    }
}

/// A deadline in the past becomes a negative delay converted to an unsigned count: it
/// lands centuries away.
final class PastDeadlineDroppedMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let now = self.now
        guard deadline < now else { return try super.schedule(at: deadline, action) }
        let delay = UInt64(bitPattern: Int64(deadline.nanoseconds) - Int64(now.nanoseconds))
        return try super.schedule(at: now.advancedSaturating(by: delay), action)
    }
}

/// Keeps delayed actions in a list in the order they were added and arms one timer for
/// the head: a later timer added first holds back an earlier one.
final class TimersInInsertionOrderMutant: MutantBase, @unchecked Sendable {
    private let list = Lock<[(deadline: SchedulerTime, action: SchedulerAction, disposable: BooleanDisposable)]>([])

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let first = list.withLock { list in
            list.append((deadline, action, disposable))
            return list.count == 1
        }
        if first { arm(deadline) }
        return disposable
    }

    private func arm(_ deadline: SchedulerTime) {
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            let (head, next) = self.list.withLock { list in (list.removeFirst(), list.first?.deadline) }
            self.run(head.action, unless: head.disposable)
            if let next { self.arm(next) }
        }
    }
}

/// Adds a microsecond of slack to a deadline in signed 64-bit arithmetic that wraps: the
/// distant future becomes the distant past, and fires at once.
final class DistantFutureWrapsMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let wrapped = Int64(truncatingIfNeeded: deadline.nanoseconds) &+ 1_000
        return try super.schedule(at: SchedulerTime.zero.advancedSaturating(by: UInt64(max(wrapped, 0))), action)
    }
}

extension SchedulerTime {
    /// `nanoseconds` after this time, saturating at the latest representable time.
    func advancedSaturating(by nanoseconds: UInt64) -> SchedulerTime {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        return overflow ? .distantFuture : ((try? SchedulerTime(nanoseconds: sum)) ?? .distantFuture)
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let timer: [Mutant] = [
        mutant("early-timers", "fires timers at half their delay", .tim1) { EarlyTimersMutant($0) },
        mutant("early-by-rounding", "rounds deadlines down to 10 ms", .tim1) {
            EarlyByRoundingMutant($0)
        },
        mutant("now-cached-per-action", "answers `now` inside an action with the time the action began", .tim1) {
            NowCachedPerActionMutant($0)
        },
        mutant("late-timers", "fires timers 400 ms late", .tim2) { LateTimersMutant($0) },
        mutant("past-deadline-dropped", "a past deadline becomes centuries away", .tim3) {
            PastDeadlineDroppedMutant($0)
        },
        mutant("timers-in-insertion-order", "fires timers in the order they were added", .tim4) {
            TimersInInsertionOrderMutant($0)
        },
        mutant("distant-future-wraps", "a far deadline wraps into the past", .tim10) {
            DistantFutureWrapsMutant($0)
        },
        mutant("fast-clock", "its clock runs 25 % fast, timers agreeing with it", .tim13) {
            FastClockMutant($0)
        },
        mutant(
            "wall-clock-deadlines", "keeps timers as wall-clock deadlines", .tim14, wallClockStep: MutantWallClock.step
        ) { WallClockDeadlinesMutant($0) },
    ]
}
