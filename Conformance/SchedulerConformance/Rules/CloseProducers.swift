import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// ORD-2's third phase: exclusivity while producers on different cores schedule close
/// together, with actions long enough for an overlap to be seen.
///
/// A hand-written serial scheduler goes wrong at the hand-off between producers and its
/// drain: two producers that find it idle at the same moment both start a drain, a drain that
/// has let go keeps running work, an action is let go of when it starts instead of when it
/// returns. Each fault is active only while work arrives at the edge of a running action, and
/// with actions of a microsecond the overlap it causes is over before anyone looks. So the
/// producers are pinned to distinct cores and released together in rounds, each scheduling a
/// short burst with gaps of 0 to 40 µs (so work also arrives just as the worker runs out);
/// actions last from nothing to 250 µs (most are short, so the scheduler goes idle between
/// rounds); the suite's own enter/leave counters see every overlap. A few actions of calls
/// that overlapped another's, or found the scheduler idle, wait for their successor instead:
/// a scheduler that lets the next start when calls collide, or starts a second drain at the
/// idle edge, shows it if that other action gets a core within 2 ms.
///
/// The phase is exercised when producers' `schedule` calls overlapped each other while both
/// kept their cores (a producer preempted inside its call overlaps everything and proves
/// nothing), found the scheduler idle and found it busy, each at least `wanted` times. It
/// always makes five runs, since a fault at the idle edge needs two arrivals just as the
/// worker runs dry, and up to twenty until exercised (a loaded machine takes more); then it
/// calls itself inconclusive.
func exclusiveWithCloseProducers(_ ctx: RuleContext) throws(RuleFailure) {
    var seen = CloseProducerRun()
    for run in 0..<20 where run < 5 || !seen.exercised {
        seen.add(try closeProducersRun(ctx, seed: UInt64(run)))
        try ctx.expect(
            seen.overlaps == 0,
            """
            \(seen.overlaps) of \(seen.actions) actions started while another was running, with producers on distinct \
            cores scheduling close together (\(seen.contended) calls overlapped another producer's, \(seen.idle) \
            found the scheduler idle, \(seen.busy) found it running an action, \(seen.held) actions of overlapping \
            calls or of calls that found it idle waited for a successor)
            """
        )
    }
    try ctx.requireExercised(
        seen.exercised,
        """
        producers scheduling close together met the scheduler too rarely: \(seen.contended) calls overlapped another \
        producer's, \(seen.idle) found it idle and \(seen.busy) found it running (\(CloseProducerRun.wanted) of each \
        are needed), and \(seen.held) actions of overlapping calls or of calls that found it idle waited for a \
        successor (\(CloseProducerRun.heldWanted) are needed)
        """
    )
}

/// What one or more runs of the phase saw.
private struct CloseProducerRun {
    static let wanted = 100
    /// Actions of overlapping calls, and of calls that found the scheduler idle, that wait
    /// for a successor, at most, in each run, each; and how many must have waited, in all.
    static let holdsPerRun = 4, heldWanted = 5
    var actions = 0
    var overlaps = 0
    var contended = 0
    var idle = 0
    var busy = 0
    var held = 0

    var exercised: Bool {
        contended >= Self.wanted && idle >= Self.wanted && busy >= Self.wanted && held >= Self.heldWanted
    }

    mutating func add(_ other: CloseProducerRun) {
        actions += other.actions
        overlaps += other.overlaps
        contended += other.contended
        idle += other.idle
        busy += other.busy
        held += other.held
    }
}

/// One run: a fresh scheduler, 200 rounds of a three-action burst per producer, 0 to 40 µs between its calls.
private func closeProducersRun(_ ctx: RuleContext, seed: UInt64) throws(RuleFailure) -> CloseProducerRun {
    let scheduler = ctx.makeScheduler()
    let producers = max(2, ProcessInfo.processInfo.activeProcessorCount)
    let rounds = 200
    let burst = 3
    let total = producers * rounds * burst
    let actions = OverlapMeter()
    let calls = OverlapMeter()
    let pending = Atomic<Int>(0)
    let idle = Atomic<Int>(0)
    let contended = Atomic<Int>(0)
    let busy = Atomic<Int>(0)
    // Holds begun for actions of overlapping calls, and of calls that found it idle.
    let collidingHolds = Atomic<Int>(0)
    let idleHolds = Atomic<Int>(0)
    let held = Atomic<Int>(0)
    let arrived = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let done = Signal()
    let mustHappen = ctx.timing.mustHappen
    try ctx.onThreads(producers, spread: true) { producer in
        var random = SplitMix64(seed: seed &* 31 &+ UInt64(producer))
        for round in 0..<rounds {
            // A spinning barrier, so the producers' bursts start within a microsecond or so.
            arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
            _ = spinWait(upTo: mustHappen) { arrived.load(ordering: .acquiring) >= producers * (round + 1) }
            for _ in 0..<burst {
                let length = actionLength(random.next())
                let foundIdle = pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0
                if foundIdle {
                    idle.wrappingAdd(1, ordering: .relaxed)
                } else if actions.current > 0 {
                    busy.wrappingAdd(1, ordering: .relaxed)
                }
                let mark = ThreadMark.now()
                let overlapped = calls.enter()
                scheduler.schedule {
                    actions.enter()
                    // The first few actions of overlapping calls, and of calls that found it
                    // idle, wait up to 2 ms for another to start while a successor is queued:
                    // a scheduler that lets the next go when calls collide, or starts a second
                    // drain at the idle edge, is then caught whenever that other gets a core
                    // in the time, while a serial one costs its few waits.
                    let limit = CloseProducerRun.holdsPerRun
                    if pending.load(ordering: .acquiring) > 1,
                        overlapped
                            ? collidingHolds.wrappingAdd(1, ordering: .relaxed).oldValue < limit
                            : foundIdle && idleHolds.wrappingAdd(1, ordering: .relaxed).oldValue < limit
                    {
                        held.wrappingAdd(1, ordering: .relaxed)
                        _ = spinWait(upTo: .milliseconds(2)) { actions.current > 1 }
                    } else {
                        spin(length)
                    }
                    actions.leave()
                    pending.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                    if finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == total { done.fire() }
                }
                calls.leave()
                // An overlap counts as contention only if this producer kept its core through
                // the call: one preempted inside `schedule` overlaps everything, and proves
                // nothing about two calls really made at once.
                if overlapped, ThreadMark.now()?.evidence(since: mark) == .notPreempted {
                    contended.wrappingAdd(1, ordering: .relaxed)
                }
                // Gaps of nothing to 40 µs inside the burst, so work also arrives just as the
                // worker runs out of it, not only while a backlog is queued.
                spin(gapLength(random.next()))
            }
            // A pause of 20 to 200 µs, asleep, so the worker has a core and often drains the
            // queue before the next round.
            usleep(UInt32(20 + random.next() % 180))
        }
    }
    try ctx.waitFor(done, on: scheduler, "the \(total) actions of the close producers ran")
    return CloseProducerRun(
        actions: total, overlaps: actions.overlaps, contended: contended.load(ordering: .relaxed),
        idle: idle.load(ordering: .relaxed), busy: busy.load(ordering: .relaxed), held: held.load(ordering: .relaxed)
    )
}

/// How long a producer waits between two calls of a burst.
private func gapLength(_ random: UInt64) -> Duration {
    switch random % 10 {
    case 0..<4: .zero
    case 4..<7: .nanoseconds(Int64(random >> 8) % 10_000)
    default: .nanoseconds(10_000 + Int64(random >> 8) % 30_000)
    }
}

/// How long an action spins: half do nothing, a few run for up to 250 µs.
private func actionLength(_ random: UInt64) -> Duration {
    switch random % 100 {
    case 0..<50: .zero
    case 50..<75: .microseconds(5)
    case 75..<90: .microseconds(30)
    case 90..<97: .microseconds(100)
    default: .microseconds(250)
    }
}
