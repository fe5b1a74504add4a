import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// REC-4's second half: two threads call `reschedule` 20 times each, at the same moment,
/// while the block runs, and every call counts: a count bumped by compare-and-swap must
/// retry when the other thread's bump came first, not give up. The moment is forced and
/// observed by a ``CallRace`` (its pause ignored: bursts of 20 calls overlap without it).
/// The evidence is the calls that interleaved: each thread takes a stamp from the race's
/// shared counter before each call, and a call whose stamp follows the other thread's is one
/// made against it. Only trials whose bursts overlapped while neither thread lost its core
/// count (on a loaded machine, bursts that overlap in time may still have taken turns on a
/// core), and an overlap of a call or two at a burst's end is little evidence: on a loaded
/// machine bursts that overlap often barely do, and hold too few calls made against each
/// other to catch a bump that gives up. The rule goes on until 1,000 calls interleaved
/// (about 30 trials on a quiet machine; up to 10 s, else inconclusive) and stops at the
/// first miscount. Time, not a count of trials, bounds it: a scheduler that runs the
/// recursion on the caller's thread makes trials so fast that any count runs out before a
/// loaded machine has overlapped enough of them.
func reschedulesAtOnceEachCount(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let race = CallRace(bound: ctx.timing.mustHappen)
    let perThread = 20
    let expected = 1 + 2 * perThread
    let wanted = 1_000
    var (overlaps, interleaved) = (0, 0)
    var trials = 0
    // Every trial's count, judged once all are quiet: a settle per trial would cost a
    // concurrent scheduler a quiet window each time.
    var counts: [Box<Int>] = []
    let budget = ContinuousClock.now + Timing.evidenceBudget(.seconds(10))
    while interleaved < wanted && ContinuousClock.now < budget {
        let runs = Box(0)
        counts.append(runs)
        let last = Signal()
        let outcome = Box<CallRace.Trial??>(nil)
        let calls = Box([[Int]](repeating: [], count: 2))
        let trial = trials
        scheduler.scheduleRecursive { reschedule in
            let run = runs.update {
                $0 += 1
                return $0
            }
            if run == expected { last.fire() }
            guard run == 1 else { return }
            outcome.value = race.run(trial: trial) { thread, _ in
                var stamps: [Int] = []
                stamps.reserveCapacity(perThread)
                let start = race.stamp()
                for _ in 0..<perThread {
                    stamps.append(race.stamp())
                    reschedule()
                }
                calls.update { $0[thread] = stamps }
                return (start, race.stamp())
            }
        }
        try ctx.waitFor(
            last, on: scheduler,
            """
            the \(2 * perThread) runs asked for by two threads at once, in trial \(trials) (\(runs.value - 1) ran: a \
            reschedule was lost)
            """
        )
        let met = try ctx.unwrap(
            outcome.value, "the recursion's first run did not run the two rescheduling threads")
        try ctx.expect(met != nil, "the two rescheduling threads did not return within \(ctx.timing.mustHappen)")
        if met?.met == true {
            overlaps += 1
            interleaved += interleavedCalls(calls.value[0], calls.value[1])
        }
        trials += 1
    }
    try ctx.settle(scheduler)
    if let (trial, runs) = counts.enumerated().first(where: { $0.element.value != expected }) {
        throw RuleFailure(
            """
            ran \(runs.value) times for one start and \(2 * perThread) reschedules made at once from two threads, in \
            trial \(trial)
            """
        )
    }
    try ctx.requireExercised(
        interleaved >= wanted,
        """
        only \(interleaved) of the \(wanted) reschedules wanted interleaved with the other thread's, in the \
        \(overlaps) of \(trials) pairs of bursts that overlapped with both threads on a core: the two threads rarely \
        ran at once
        """
    )
}

/// How many of two threads' calls, by their stamps (each ascending), came right after one of
/// the other thread's: the calls made against each other.
func interleavedCalls(_ first: [Int], _ second: [Int]) -> Int {
    var (i, j, switches, last) = (0, 0, 0, -1)
    while i < first.count || j < second.count {
        let thread = j == second.count || (i < first.count && first[i] < second[j]) ? 0 : 1
        if thread == 0 { i += 1 } else { j += 1 }
        if last != -1 && thread != last { switches += 1 }
        last = thread
    }
    return switches
}

/// REC-4's part for a scheduler that runs a recursion on the calling thread (synchronous, so
/// unrolled into a loop over a count of pending runs): a reschedule made from another thread
/// just as the block returns must run, whether it reaches the loop before the loop decides
/// to end (one more turn there) or after (a loop of its own, on the rescheduling thread). A
/// loop that decides to end in one critical section and clears its "looping" mark in another
/// loses the reschedule that came between: it only counted, for a loop that was ending.
///
/// Each trial starts a recursion on one thread of a ``CallRace``; its first run hands
/// `reschedule` to the other thread and returns, and that thread calls it; one of the two
/// pauses first (the block before it returns, or the call). A trial counts as exercised when
/// the call overlapped the stretch from the block's return to `scheduleRecursive`'s, on
/// threads that kept their cores; the part goes on until 12,000 did and the trials swept every
/// offset (about one trial in ten meets: up to 300,000 trials or 10 s, else inconclusive),
/// and stops at the first lost run: a window between two critical sections is a few
/// nanoseconds wide, and few of the trials that met land in it.
func reschedulesAsTheLoopEndsEachRun(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let race = CallRace(bound: ctx.timing.mustHappen)
    let bound = ctx.timing.mustHappen
    try race.explore(
        ctx, until: 12_000,
        pairs: "reschedules from another thread overlapped the end of the recursion's loop with both threads on a core",
        batch: 16, most: 300_000,
        prepare: { _ in LoopEndTrial() },
        race: { setup, thread, lag in
            // The hand-over lines the two threads up: the recursion's thread pauses after
            // it, before its block returns, or the rescheduling thread before its call.
            if thread == 0 {
                scheduler.scheduleRecursive { reschedule in
                    guard
                        setup.runs.update({
                            $0 += 1
                            return $0
                        }) == 1
                    else { return }
                    setup.handedOver.value = reschedule
                    setup.blockReturned.value = race.stamp()
                    race.pause(lag, on: 0)
                    setup.returning.value = race.stamp()
                }
                // From the block's return, its pause left out: a call made during the pause is
                // a reschedule inside the block, not one racing the loop's end.
                return (setup.returning.value, race.stamp())
            }
            guard spinWait(upTo: bound, until: { setup.blockReturned.value != 0 }),
                let reschedule = setup.handedOver.value
            else { return (0, 0) }
            race.pause(lag, on: 1)
            let start = race.stamp()
            reschedule()
            return (start, race.stamp())
        },
        judge: { first, batch throws(RuleFailure) in
            for (offset, (setup, trial)) in batch.enumerated() {
                try ctx.expect(
                    setup.blockReturned.value != 0, "the recursion's first run did not run, in trial \(first + offset)")
                let count = setup.runs.value
                try ctx.expect(
                    count == 2,
                    "a reschedule made from another thread as the block returned gave \(count - 1) runs instead of 1, "
                        + "in trial \(first + offset) ("
                        + (trial.met
                            ? "the call overlapped the end of the loop" : "the call came apart from the loop's end")
                        + ")"
                )
            }
        }
    )
}

/// One trial of REC-4's synchronous part: the recursion's runs, the `reschedule` its first
/// run hands over, and the stamp taken as that run returned.
final class LoopEndTrial: Sendable {
    let runs = Box(0)
    let handedOver = Box<(@Sendable () -> Void)?>(nil)
    let blockReturned = Box(0)
    /// The stamp taken as the block returned, after its pause.
    let returning = Box(0)
}

/// REC-5's part for a virtual-time scheduler that cancels: a recursion disposed on one thread
/// while another thread reschedules it (after its block returned) leaves nothing for a step,
/// whichever call gets in first. The reschedule adds a run to the recursion, schedules it
/// and records its handle; the dispose marks every run disposed and disposes the handles it
/// finds. A run whose "disposed" mark is read in one critical section and whose handle is
/// recorded in another (or whose dispose reads the handle in one and marks it in another)
/// leaves the handle that came between undisposed: a dead run a step then takes.
///
/// The two calls are made by a ``CallRace``; a trial counts as exercised when they
/// overlapped on threads that kept their cores. The part goes on until 2,000 did and the
/// trials swept every offset (up to 100,000 trials or 10 s, else inconclusive), and stops at
/// the first run left pending: the window between two critical sections on one lock is a
/// few nanoseconds wide, and the
/// thread that just left the lock takes it again first unless the other is already there.
func disposeRacingARescheduleLeavesNoRun(_ ctx: RuleContext) throws(RuleFailure) {
    guard let virtual = ctx.makeScheduler() as? any VirtualTimeScheduler else { return }
    let race = CallRace(bound: ctx.timing.mustHappen)
    try race.explore(
        ctx, until: 2_000,
        pairs: "disposals of a recursion overlapped a reschedule of it with both threads on a core",
        batch: 16,
        prepare: { trial throws(RuleFailure) in
            let runs = Box(0)
            let handedOver = Box<(@Sendable () -> Void)?>(nil)
            let handle = virtual.scheduleRecursive { reschedule in
                if runs.update({
                    $0 += 1
                    return $0
                }) == 1 {
                    handedOver.value = reschedule
                }
            }
            let recursion = try ctx.unwrap(handle, "scheduleRecursive returned no handle")
            try ctx.expect(virtual.step(), "step() did not run the recursion's first run, in trial \(trial)")
            let reschedule = try ctx.unwrap(
                handedOver.value, "the recursion's first run did not run, in trial \(trial)")
            return RaceOfDisposal(runs: runs, recursion: recursion, reschedule: reschedule)
        },
        race: { setup, thread, lag in
            race.pause(lag, on: thread)
            let start = race.stamp()
            if thread == 0 { setup.reschedule() } else { setup.recursion.dispose() }
            return (start, race.stamp())
        },
        judge: { first, batch throws(RuleFailure) in
            try ctx.expect(
                !virtual.step(),
                """
                a recursion disposed on one thread while another rescheduled it left a run pending: step() ran it, in \
                one of trials \(first)–\(first + batch.count - 1)
                """
            )
            for (offset, (setup, _)) in batch.enumerated() {
                let count = setup.runs.value
                try ctx.expect(
                    count == 1, "the disposed recursion ran \(count - 1) more times, in trial \(first + offset)")
            }
        }
    )
}

/// One trial of REC-5's racing part: a recursion whose first run has run, and the two calls
/// that race.
struct RaceOfDisposal: Sendable {
    let runs: Box<Int>
    let recursion: any Disposable
    let reschedule: @Sendable () -> Void
}
