import Dispatch
import Foundation
import SchedulerVocabulary
import Schedulers
import Synchronization

final class RepeatingFirstTickLateMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        super.makeTimer(deadline: deadline.advancedSaturating(by: UInt64(spec.intervalNanoseconds)), spec: spec, tick)
    }
}

/// Repeats by re-arming a one-shot timer from each tick's own time plus the interval and
/// three leeways: every period is too long, and the lag grows tick by tick.
final class RepeatingDriftsMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        rearmingTimer(deadline: deadline, period: UInt64(spec.intervalNanoseconds + 3 * spec.leewayNanoseconds), tick)
    }
}

/// Ticks every 0.8 intervals: each tick after the first is early.
final class RepeatingEarlyMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let shorter =
            (try? RepeatSpec(
                interval: .nanoseconds(spec.intervalNanoseconds / 5 * 4), leeway: .nanoseconds(spec.leewayNanoseconds)))
            ?? spec
        return super.makeTimer(deadline: deadline, spec: shorter, tick)
    }
}

/// Runs the first tick as soon as it is scheduled ("fire immediately, then every interval"),
/// then keeps the grid: only tick 0 is early.
final class RepeatingFiresAtOnceMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let rest = super.makeTimer(
            deadline: deadline.advancedSaturating(by: UInt64(spec.intervalNanoseconds)), spec: spec, tick)
        queue.async { if !rest.isDisposed { tick() } }
        return rest
    }
}

/// Keeps the grid for three ticks, then arms every later one 2 ms before its grid point, as a
/// timer that subtracts its measured wake-up delay would: one tick in ten of the rule's
/// interval early, and each by the same small amount.
final class RepeatingCompensatesMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = BooleanDisposable()
        let step = UInt64(spec.intervalNanoseconds)
        @Sendable func arm(_ k: UInt64) {
            let at = deadline.nanoseconds &+ k &* step &- (k >= 3 ? min(2_000_000, step / 10) : 0)
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(at, 1))) {
                guard !handle.isDisposed else { return }
                tick()
                arm(k + 1)
            }
        }
        arm(0)
        return handle
    }
}

final class OverflowingIntervalsMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let wrap = { (duration: Duration) in max(1, duration.components.seconds &* 1_000_000_000) }
        let spec = try RepeatSpec(interval: .nanoseconds(wrap(interval)), leeway: .nanoseconds(wrap(leeway) - 1))
        return makeTimer(deadline: deadline, spec: spec) { CurrentScheduler.run(as: self, action) }
    }
}

/// Repairs bad repeating requests instead of refusing them, one repair per instance.
final class RepairsRepeatingMutant: MutantBase, @unchecked Sendable {
    enum Repair: String, Sendable {
        /// A zero or negative interval becomes one millisecond.
        case zeroInterval = "zero-interval-clamped"
        /// A negative leeway becomes zero.
        case negativeLeeway = "negative-leeway-clamped"
        /// An interval over a day is "clamped to a sane maximum" of one millisecond.
        case hugeInterval = "huge-interval-clamped"
    }

    let repair: Repair

    init(_ repair: Repair) {
        self.repair = repair
        super.init(repair.rawValue)
    }

    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        var interval = interval
        var leeway = leeway
        switch repair {
        case .zeroInterval: if interval <= .zero { interval = .milliseconds(1) }
        case .negativeLeeway: if leeway < .zero { leeway = .zero }
        case .hugeInterval: if interval > .seconds(86_400) { interval = .milliseconds(1) }
        }
        return try super.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }
}

/// Checks the interval after converting it to whole microseconds: a positive interval
/// shorter than a microsecond is refused as if it were zero.
final class RefusesShortIntervalsMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        guard interval.attoseconds / 1_000_000_000_000 > 0 else { throw .invalidInterval(interval) }
        return try super.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let repeatingTimer: [Mutant] = [
        mutant("repeating-early", "ticks every 0.8 intervals", .tim5) { RepeatingEarlyMutant($0) },
        mutant("repeating-fires-at-once", "runs the first tick when scheduled, then keeps the grid", .tim5) {
            RepeatingFiresAtOnceMutant($0)
        },
        mutant("repeating-compensates", "arms every tick after the third 2 ms before its grid point", .tim5) {
            RepeatingCompensatesMutant($0)
        },
        mutant("refuses-short-intervals", "refuses a positive interval under a microsecond", .tim7) {
            RefusesShortIntervalsMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.zeroInterval, "turns a zero interval into 1 ms", .tim7) {
            RepairsRepeatingMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.negativeLeeway, "turns a negative leeway into zero", .tim8) {
            RepairsRepeatingMutant($0)
        },
        mutant("overflowing-intervals", "wraps huge intervals instead of refusing", .tim9) {
            OverflowingIntervalsMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.hugeInterval, "clamps intervals over a day to 1 ms", .tim11) {
            RepairsRepeatingMutant($0)
        },
        mutant("repeating-drifts", "re-arms each tick from its own time plus three leeways", .tim12) {
            RepeatingDriftsMutant($0)
        },
        mutant("repeating-first-tick-late", "the first tick comes one interval after the start", .tim15) {
            RepeatingFirstTickLateMutant($0)
        },
    ]
}
