import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

extension RuleCatalogue {
    static let recursion: [Rule] = [
        Rule(
            .rec1, "no reschedule: the block runs exactly once",
            rationale: "Recursive scheduling with no `reschedule` call is a plain `schedule`.",
            hint: "the recursion schedules one run at start and nothing more unless `reschedule` is called."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let runs = Box(0)
            let done = Signal()
            scheduler.scheduleRecursive { _ in
                runs.update { $0 += 1 }
                done.fire()
            }
            try ctx.waitFor(done, on: scheduler, "the first run")
            try ctx.settle(scheduler)
            try ctx.expect(runs.value == 1, "ran \(runs.value) times")
        },
        Rule(
            .rec2, "reschedules made during the block wait until it returns",
            rationale:
                "A run never re-enters itself: ReactiveCocoa counts `reschedule` calls made during the block and schedules them after it returns.",
            hint:
                "`reschedule` called while the block executes only bumps a counter; the runs are scheduled after the block returns."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let log = Recorder<String>()
            let runs = Box(0)
            let finished = Box(0)
            let third = Signal()
            // On a concurrent scheduler a run scheduled too early would start on another
            // thread while the first still runs; the first stays until a probe scheduled
            // after the reschedules has run (so anything queued ahead of it was taken),
            // then for a quiet window in which the process's threads were getting their
            // cores, in which such a run would have started.
            let concurrent = ctx.subject.capabilities.contains(.concurrent)
            let probeRan = Signal()
            let secondStarted = Signal()
            let watched = Box<Bool?>(nil)
            scheduler.scheduleRecursive { reschedule in
                let run = runs.update {
                    $0 += 1
                    return $0
                }
                log.record("start \(run)")
                if run == 2 { secondStarted.fire() }
                if run == 1 {
                    reschedule()
                    reschedule()
                    if concurrent {
                        scheduler.schedule { probeRan.fire() }
                        if probeRan.wait(ctx.timing.mustHappen) {
                            watched.value = secondStarted.watchThroughResponsiveWindow(
                                ctx.timing.quietWindow, bound: ctx.timing.mustHappen)
                        }
                    }
                }
                log.record("end \(run)")
                // Counted at the end: on a concurrent scheduler runs 2 and 3 may finish in either order.
                if finished.update({
                    $0 += 1
                    return $0
                }) == 3 {
                    third.fire()
                }
            }
            try ctx.waitFor(third, on: scheduler, "three runs")
            try ctx.requireExercised(
                !concurrent || probeRan.hasFired,
                "an action scheduled during the first run did not run while it waited, so an early run could not have started either"
            )
            try ctx.requireExercised(
                !concurrent || watched.value != nil,
                "the first run watched for an early run for \(ctx.timing.mustHappen), and its thread never kept its core through a quiet window of \(ctx.timing.quietWindow): an early run's thread may not have had one either"
            )
            let events = log.all
            let endOfFirst = try ctx.unwrap(events.firstIndex(of: "end 1"), "no end of the first run in \(events)")
            for later in ["start 2", "start 3"] {
                let index = try ctx.unwrap(events.firstIndex(of: later), "no '\(later)' in \(events)")
                try ctx.expect(index > endOfFirst, "'\(later)' came before the first run returned: \(events)")
            }
        },
        Rule(
            .rec3, "reschedule twice: exactly two more runs",
            rationale: "Each `reschedule` call asks for one more run; none may be lost or merged.",
            hint: "the counter of pending reschedules is not a Bool, and each counted call schedules one run."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let runs = Box(0)
            let third = Signal()
            scheduler.scheduleRecursive { reschedule in
                let run = runs.update {
                    $0 += 1
                    return $0
                }
                if run == 1 {
                    reschedule()
                    reschedule()
                }
                if run == 3 { third.fire() }
            }
            try ctx.waitFor(third, on: scheduler, "three runs")
            try ctx.settle(scheduler)
            try ctx.expect(runs.value == 3, "ran \(runs.value) times")
        },
        Rule(
            .rec4, "reschedules made later, or from two threads at once, each run",
            excludes: .threadConfined,
            rationale:
                "Asynchronous continuations (a network callback, say) call `reschedule` after the block returned; two such calls ask for two runs.",
            hint:
                "after the block returned, `reschedule` schedules at once instead of bumping a counter nobody reads, and two calls are not merged into one pending flag.",
            // Its racing parts pin two threads on the cores (``CallRace``).
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let stored = Box<(@Sendable () -> Void)?>(nil)
            let first = Signal()
            let runs = Box(0)
            let later = Recorder<Int>(expecting: 2)
            scheduler.scheduleRecursive { reschedule in
                let run = runs.update {
                    $0 += 1
                    return $0
                }
                if run == 1 {
                    stored.value = reschedule
                    first.fire()
                } else {
                    later.record(run)
                }
            }
            try ctx.waitFor(first, on: scheduler, "the first run")
            let reschedule = try ctx.unwrap(stored.value, "the first run kept no reschedule function")
            // Both calls are made while the scheduler is held, so the first run they ask for
            // cannot start between them: two calls must still make two runs.
            let gate = try ctx.hold(scheduler)
            try ctx.onFreshThread {
                reschedule()
                reschedule()
            }
            gate.fire()
            try ctx.waitFor(
                later.complete, on: scheduler, "two runs asked for from another thread (\(later.count) ran)")
            try ctx.settle(scheduler)
            try ctx.expect(runs.value == 3, "ran \(runs.value) times for one start and two later reschedules")
            // The loop's part first: under the sanitizer the bursts' part can run short of
            // overlaps (inconclusive), and a lost run must still be found.
            if ctx.subject.capabilities.contains(.synchronous) { try reschedulesAsTheLoopEndsEachRun(ctx) }
            try reschedulesAtOnceEachCount(ctx)
        },
        Rule(
            .rec5, "disposing stops every further run, one already queued included",
            anyOf: [.serial, .virtualTime], excludes: [.synchronous, .trampoline],
            rationale:
                "Disposal is how an endless recursion (polling, a retry loop) ends; a run already queued when `dispose()` returns must not start.",
            hint:
                "each run checks the recursion's disposable before calling the block (not only when rescheduling), and pending runs are disposed with it (on a virtual-time scheduler that cancels, none is left for a step to run).",
            // Its racing parts pin two threads on the cores (``CallRace``).
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            // Twice, with the next run provably queued when `dispose()` is called: once from
            // a plain action that run 10 queued ahead of run 11, once from another thread
            // while such an action holds the scheduler.
            for fromOutside in [false, true] where !fromOutside || ctx.canHold {
                let scheduler = ctx.makeScheduler()
                let runs = Box(0)
                let disposedAfter = Box<Int?>(nil)
                let handleBox = Box<(any Disposable)?>(nil)
                let parked = Signal()
                let gate = Signal()
                let disposer = Signal()
                let handleStored = Signal()
                let handle = scheduler.scheduleRecursive { reschedule in
                    let run = runs.update {
                        $0 += 1
                        return $0
                    }
                    // The disposing action needs the handle, which exists only once
                    // `scheduleRecursive` returned.
                    if run == 1 { _ = handleStored.wait(ctx.timing.mustHappen) }
                    if run == 10 {
                        // Queued now, so it runs before run 11, which is scheduled when this
                        // block returns.
                        scheduler.schedule {
                            if fromOutside {
                                parked.fire()
                                _ = gate.wait(ctx.timing.mustHappen)
                            } else {
                                handleBox.value?.dispose()
                                disposedAfter.value = runs.value
                            }
                            disposer.fire()
                        }
                    }
                    if run < 1_000 { reschedule() }
                }
                let disposable = try ctx.unwrap(handle, "scheduleRecursive returned no handle")
                handleBox.value = disposable
                handleStored.fire()
                if fromOutside {
                    try ctx.waitFor(parked, on: scheduler, "run 10's action holding the scheduler")
                    try ctx.onFreshThread { disposable.dispose() }
                    disposedAfter.value = runs.value
                    gate.fire()
                }
                try ctx.waitFor(disposer, on: scheduler, "the action that disposes the recursion")
                // Stepped one action at a time, the virtual scheduler has only run 11 left, and
                // a scheduler that can cancel must have withdrawn it with the recursion: a dead
                // run left in the queue would take a step of a test that counts them.
                if let virtual = scheduler as? any VirtualTimeScheduler,
                    ctx.subject.capabilities.contains(.cancellation)
                {
                    try ctx.expect(!virtual.step(), "the disposed recursion left its next run pending: step() ran it")
                }
                try ctx.settle(scheduler)
                try ctx.settle(scheduler)
                let atDispose = try ctx.unwrap(disposedAfter.value, "the disposing action did not run")
                try ctx.expect(
                    runs.value == atDispose,
                    "ran \(runs.value - atDispose) times after dispose() returned (\(fromOutside ? "from another thread while the scheduler was held" : "from an action queued ahead of the next run"))"
                )
            }
            // The race needs a second thread, which a confined scheduler must never meet.
            if ctx.subject.capabilities.contains(.cancellation), !ctx.subject.capabilities.contains(.threadConfined) {
                try disposeRacingARescheduleLeavesNoRun(ctx)
            }
        },
        Rule(
            .rec6, "disposing from inside the block stops every further run",
            excludes: .threadConfined,
            rationale: "A recursion often decides inside itself that it is done.",
            hint:
                "the disposed check happens before each run, including runs already counted during the disposing block."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let runs = Box(0)
            let own = Box<(any Disposable)?>(nil)
            let stored = Box<(@Sendable () -> Void)?>(nil)
            let first = Signal()
            let fifth = Signal()
            let handle = scheduler.scheduleRecursive { reschedule in
                let run = runs.update {
                    $0 += 1
                    return $0
                }
                if run == 1 {
                    // The handle exists only after scheduleRecursive returned: continue later.
                    stored.value = reschedule
                    first.fire()
                    return
                }
                // One reschedule per run keeps the chain linear, even on a concurrent
                // scheduler; the disposing run asks twice, and both must be dropped.
                if run == 5 {
                    own.value?.dispose()
                    reschedule()
                    fifth.fire()
                }
                // A cap, so that a scheduler ignoring disposal fails instead of spinning forever.
                if run < 1_000 { reschedule() }
            }
            own.value = try ctx.unwrap(handle, "scheduleRecursive returned no handle")
            try ctx.waitFor(first, on: scheduler, "the first run")
            try ctx.onFreshThread { stored.value?() }
            try ctx.waitFor(fifth, on: scheduler, "the fifth run")
            if let virtual = scheduler as? any VirtualTimeScheduler { virtual.step(5_000) }
            try ctx.settle(scheduler)
            try ctx.settle(scheduler)
            try ctx.expect(runs.value == 5, "ran \(runs.value) times; disposal in run 5 should stop it there")
        },
        Rule(
            .rec7, "deep recursion without stack growth: 1,000,000 levels inline, 20,000 through a queue",
            rationale:
                "Deep recursion (100,000+ levels) is routine in stream processing; the field has shipped immediate schedulers that overflow the stack.",
            hint:
                "a synchronous scheduler unrolls recursion into a loop over a counter; others must enqueue each run instead of calling it."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let meter = StackMeter()
            let runs = Box(0)
            let done = Signal()
            // A stack-recursing implementation overflows the meter's limit within a few
            // thousand levels. Through a queue, 20,000 levels pass the limit even at the
            // smallest frame a call can leave (a return address and a frame pointer, 16
            // bytes); more would only cost time (the main queue on Linux wakes its run loop
            // once per hop, 5 µs).
            let inline = !ctx.subject.capabilities.isDisjoint(with: [.synchronous, .trampoline])
            let levels = inline ? 1_000_000 : 20_000
            scheduler.scheduleRecursive { reschedule in
                meter.sample()
                let run = runs.update {
                    $0 += 1
                    return $0
                }
                if run < levels && !meter.exceeded { reschedule() } else { done.fire() }
            }
            try ctx.waitFor(done, on: scheduler, within: ctx.timing.ruleTimeout * 0.8, "the last level")
            try ctx.expect(!meter.exceeded, "the stack grew by \(meter.growth) bytes after \(runs.value) levels")
            try ctx.expect(runs.value == levels, "ran \(runs.value) of \(levels) levels")
        },
    ]
}

/// REC-4's second half: two threads call `reschedule` 20 times each, at the same moment,
/// while the block runs, and every call counts: a count bumped by compare-and-swap must
/// retry when the other thread's bump came first, not give up. The moment is forced and
/// observed by a ``CallRace`` (its pause ignored: bursts of 20 calls overlap without it), and
/// only trials whose two bursts overlapped while neither thread lost its core count as
/// exercised (on a loaded machine, bursts that overlap in time may still have taken turns on
/// a core). The rule goes on until 30 did (up to 2,000 trials or 10 s, else inconclusive)
/// and stops at the first miscount.
private func reschedulesAtOnceEachCount(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let race = CallRace(bound: ctx.timing.mustHappen)
    let perThread = 20
    let expected = 1 + 2 * perThread
    let wanted = 30
    var overlaps = 0
    var trials = 0
    // Every trial's count, judged once all are quiet: a settle per trial would cost a
    // concurrent scheduler a quiet window each time.
    var counts: [Box<Int>] = []
    let budget = ContinuousClock.now + Timing.evidenceBudget(.seconds(10))
    while overlaps < wanted && trials < 2_000 && ContinuousClock.now < budget {
        let runs = Box(0)
        counts.append(runs)
        let last = Signal()
        let outcome = Box<CallRace.Trial??>(nil)
        let trial = trials
        scheduler.scheduleRecursive { reschedule in
            let run = runs.update {
                $0 += 1
                return $0
            }
            if run == expected { last.fire() }
            guard run == 1 else { return }
            outcome.value = race.run(trial: trial) { _, _ in
                let start = race.stamp()
                for _ in 0..<perThread { reschedule() }
                return (start, race.stamp())
            }
        }
        try ctx.waitFor(
            last, on: scheduler,
            "the \(2 * perThread) runs asked for by two threads at once, in trial \(trials) (\(runs.value - 1) ran: a reschedule was lost)"
        )
        let met = try ctx.unwrap(
            outcome.value, "the recursion's first run did not run the two rescheduling threads")
        try ctx.expect(met != nil, "the two rescheduling threads did not return within \(ctx.timing.mustHappen)")
        if met?.met == true { overlaps += 1 }
        trials += 1
    }
    try ctx.settle(scheduler)
    if let (trial, runs) = counts.enumerated().first(where: { $0.element.value != expected }) {
        throw RuleFailure(
            "ran \(runs.value) times for one start and \(2 * perThread) reschedules made at once from two threads, in trial \(trial)"
        )
    }
    try ctx.requireExercised(
        overlaps >= wanted,
        "only \(overlaps) of \(trials) pairs of bursts of reschedules overlapped with both threads on a core: the two threads rarely ran at once"
    )
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
/// threads that kept their cores; the part goes on until 2,000 did and the trials swept every
/// offset (up to 100,000 trials or 10 s, else inconclusive), and stops at the first lost
/// run: a window between two critical sections is a few nanoseconds wide.
private func reschedulesAsTheLoopEndsEachRun(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let race = CallRace(bound: ctx.timing.mustHappen)
    let bound = ctx.timing.mustHappen
    try race.explore(
        ctx, until: 2_000,
        pairs: "reschedules from another thread overlapped the end of the recursion's loop with both threads on a core",
        batch: 16,
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
                    "a reschedule made from another thread as the block returned gave \(count - 1) runs instead of 1, in trial \(first + offset) (\(trial.met ? "the call overlapped the end of the loop" : "the call came apart from the loop's end"))"
                )
            }
        }
    )
}

/// One trial of REC-4's synchronous part: the recursion's runs, the `reschedule` its first
/// run hands over, and the stamp taken as that run returned.
private final class LoopEndTrial: Sendable {
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
private func disposeRacingARescheduleLeavesNoRun(_ ctx: RuleContext) throws(RuleFailure) {
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
                "a recursion disposed on one thread while another rescheduled it left a run pending: step() ran it, in one of trials \(first)–\(first + batch.count - 1)"
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
private struct RaceOfDisposal: Sendable {
    let runs: Box<Int>
    let recursion: any Disposable
    let reschedule: @Sendable () -> Void
}
