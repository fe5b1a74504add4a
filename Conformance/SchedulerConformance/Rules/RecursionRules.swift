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
                """
                A run never re-enters itself: ReactiveCocoa counts `reschedule` calls made during the block and \
                schedules them after it returns.
                """,
            hint:
                """
                `reschedule` called while the block executes only bumps a counter; the runs are scheduled after the \
                block returns, behind work scheduled while it ran.
                """
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
                """
                an action scheduled during the first run did not run while it waited, so an early run could not have \
                started either
                """
            )
            try ctx.requireExercised(
                !concurrent || watched.value != nil,
                """
                the first run watched for an early run for \(ctx.timing.mustHappen), and its thread never kept its \
                core through a quiet window of \(ctx.timing.quietWindow): an early run's thread may not have had one \
                either
                """
            )
            let events = log.all
            let endOfFirst = try ctx.unwrap(events.firstIndex(of: "end 1"), "no end of the first run in \(events)")
            for later in ["start 2", "start 3"] {
                let index = try ctx.unwrap(events.firstIndex(of: later), "no '\(later)' in \(events)")
                try ctx.expect(index > endOfFirst, "'\(later)' came before the first run returned: \(events)")
            }
            try recursionRunsQueueInOrder(ctx, scheduler)
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
                """
                Asynchronous continuations (a network callback, say) call `reschedule` after the block returned; two \
                such calls ask for two runs.
                """,
            hint:
                """
                after the block returned, `reschedule` schedules at once instead of bumping a counter nobody reads, \
                and two calls are not merged into one pending flag.
                """,
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
                """
                Disposal is how an endless recursion (polling, a retry loop) ends; a run already queued when \
                `dispose()` returns must not start.
                """,
            hint:
                """
                each run checks the recursion's disposable before calling the block (not only when rescheduling), and \
                pending runs are disposed with it (on a virtual-time scheduler that cancels, none is left for a step \
                to run).
                """,
            // Its racing parts pin two threads on the cores (``CallRace``).
            needsIdleCores: true, check: disposingStopsEveryFurtherRun),
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
                """
                Deep recursion (100,000+ levels) is routine in stream processing; the field has shipped immediate \
                schedulers that overflow the stack.
                """,
            hint:
                """
                a synchronous scheduler unrolls recursion into a loop over a counter; others must enqueue each run \
                instead of calling it.
                """
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
