import Dispatch
import SchedulerVocabulary
import Schedulers

/// Repeats every interval plus one leeway, from one Dispatch timer: each period is exactly
/// one leeway too long, which a rule allowing "interval + leeway" per period never sees.
final class PeriodStretchedByLeewayMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let stretched =
            (try? RepeatSpec(
                interval: .nanoseconds(spec.intervalNanoseconds + spec.leewayNanoseconds),
                leeway: .nanoseconds(spec.leewayNanoseconds))) ?? spec
        return super.makeTimer(deadline: deadline, spec: stretched, tick)
    }
}

/// Keeps the grid for the first `warmup` ticks, then stretches every later period by
/// `stretch` leeways (a "catch-up" scheme that re-arms from the last deadline plus the
/// leeway): a rule that looks only at the first ticks, or at the least lateness of the first
/// and last few, or that counts a measurement judged once most of its points kept time, sees
/// a punctual timer.
final class DriftsAfterWarmupMutant: MutantBase, @unchecked Sendable {
    let warmup: UInt64
    let stretch: UInt64

    init(_ name: String, warmup: UInt64 = 3, stretchedByLeeways stretch: UInt64 = 1) {
        self.warmup = warmup
        self.stretch = stretch
        super.init(name)
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = BooleanDisposable()
        let interval = UInt64(spec.intervalNanoseconds)
        let extra = stretch * UInt64(spec.leewayNanoseconds)
        let warmup = self.warmup
        @Sendable func arm(_ k: UInt64, at due: SchedulerTime) {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(due.nanoseconds, 1))) {
                guard !handle.isDisposed else { return }
                tick()
                arm(k + 1, at: due.advancedSaturating(by: interval + (k + 1 >= warmup ? extra : 0)))
            }
        }
        arm(0, at: deadline)
        return handle
    }
}

/// Re-arms a one-shot timer `interval` (plus `stretchedByLeeways` leeways) after each action
/// returned: with instant actions and no stretch it keeps the grid to within microseconds,
/// but every period is stretched by the action's length.
final class RearmsFromActionEndMutant: MutantBase, @unchecked Sendable {
    let stretch: Int

    init(_ name: String, stretchedByLeeways stretch: Int = 0) {
        self.stretch = stretch
        super.init(name)
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        rearmingTimer(
            deadline: deadline, period: UInt64(spec.intervalNanoseconds + Int64(stretch) * spec.leewayNanoseconds), tick
        )
    }
}

/// "Honours" the leeway by firing at the end of the window, as a platform that coalesces
/// may, but computes the window with four times the leeway asked: on the grid, no drift,
/// every tick three leeways later than allowed.
final class LeewayMultipliedMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let exact = (try? RepeatSpec(interval: .nanoseconds(spec.intervalNanoseconds), leeway: .zero)) ?? spec
        return super.makeTimer(
            deadline: deadline.advancedSaturating(by: 4 * UInt64(spec.leewayNanoseconds)), spec: exact, tick)
    }
}

/// Keeps the grid while nothing holds it up, but catches up on the ticks a stall made it
/// miss instead of merging them into one run, in one of three shapes, while claiming to
/// merge. Each tick is a one-shot Dispatch timer armed at `start + k × interval`, so a point
/// already past fires at once.
final class CatchesUpMissedTicksMutant: MutantBase, @unchecked Sendable {
    enum Catchup: String, Sendable {
        /// Every missed point, back to back (tokio's default "burst").
        case everyMissedTick = "repeating-bursts-missed-ticks"
        /// One extra run, then the grid: twice for a stall of any length. A rule that only
        /// counts runs against the points missed, or looks for a long burst, passes it.
        case oneExtraRun = "repeating-runs-missed-ticks-twice"
        /// Every missed point, spread a quarter interval apart to "smooth" the catch-up: no
        /// two runs back to back.
        case spreadOut = "repeating-spreads-missed-ticks"
    }

    let catchup: Catchup

    init(_ catchup: Catchup) {
        self.catchup = catchup
        super.init(catchup.rawValue)
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = BooleanDisposable()
        let interval = UInt64(spec.intervalNanoseconds)
        let catchup = self.catchup
        @Sendable func arm(_ k: UInt64, at due: SchedulerTime) {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(due.nanoseconds, 1))) {
                guard !handle.isDisposed else { return }
                tick()
                let now = self.now.nanoseconds
                let current = now >= deadline.nanoseconds ? (now - deadline.nanoseconds) / interval : 0
                var next = k + 1
                var at = deadline.advancedSaturating(by: next * interval)
                switch catchup {
                case .everyMissedTick: break
                case .oneExtraRun:
                    // At most one point behind: skip the older missed ones.
                    if current > next { next = current - 1 }
                    at = deadline.advancedSaturating(by: next * interval)
                case .spreadOut:
                    if next <= current { at = SchedulerTime.zero.advancedSaturating(by: now + interval / 4) }
                }
                arm(next, at: at)
            }
        }
        arm(0, at: deadline)
        return handle
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let repeatingGrid: [Mutant] = [
        faulty(
            CatchesUpMissedTicksMutant.Catchup.everyMissedTick, "runs every tick a stall missed, back to back", .tim16
        ) {
            CatchesUpMissedTicksMutant($0)
        },
        faulty(CatchesUpMissedTicksMutant.Catchup.oneExtraRun, "runs twice after any stall, then the grid", .tim16) {
            CatchesUpMissedTicksMutant($0)
        },
        faulty(
            CatchesUpMissedTicksMutant.Catchup.spreadOut, "runs every missed tick, a quarter interval apart", .tim16
        ) { CatchesUpMissedTicksMutant($0) },
        mutant("drifts-after-half", "keeps the grid for six ticks, then stretches each period by two leeways", .tim12) {
            DriftsAfterWarmupMutant($0, warmup: 6, stretchedByLeeways: 2)
        },
        mutant("rearms-from-action-end", "re-arms each tick an interval after its action returned", .tim12) {
            RearmsFromActionEndMutant($0)
        },
        // Declares the fixed delay it nearly keeps: each period two leeways longer than the
        // interval after the action returned, as a delay computed from a cached `now` is.
        mutant(
            "fixed-delay-stretched", "declares a fixed delay, but each period is two leeways longer", .tim12,
            declaring: .repeatPolicy(.fixedDelay)
        ) { RearmsFromActionEndMutant($0, stretchedByLeeways: 2) },
        mutant("period-stretched-by-leeway", "every period is the interval plus one leeway", .tim6) {
            PeriodStretchedByLeewayMutant($0)
        },
        mutant("drifts-after-warmup", "keeps the grid for three ticks, then stretches each period by one leeway", .tim6)
        { DriftsAfterWarmupMutant($0) },
        mutant("leeway-multiplied", "fires at the end of a window four leeways wide", .tim6) {
            LeewayMultipliedMutant($0)
        },
    ]
}
