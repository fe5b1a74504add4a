import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let cancellation: [Rule] = [
        Rule(
            .can1, "disposed before start, from any thread: never runs, and its neighbours still run",
            requires: .cancellation, anyOf: [.serial, .virtualTime], excludes: .synchronous,
            rationale:
                """
                Disposal is how operators stop pending work; a disposed action that runs anyway delivers events after \
                unsubscription.
                """,
            hint:
                """
                the action checks its own handle's disposed flag before running, on every path; disposal marks that \
                one entry (not a slot by index) and works from any thread.
                """
            , check: disposedBeforeItsTurnNeverRuns),
        Rule(
            .can2, "dispose is idempotent and `isDisposed` reports it, not whether the action ran",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale:
                "Several owners may dispose the same handle; the second call must be harmless and the state readable.",
            hint: "`dispose()` is guarded by an atomic flag and `isDisposed` reads that flag."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let handle = try ctx.unwrap(scheduler.schedule {}, "`schedule` returned no handle")
            try ctx.expect(!handle.isDisposed, "a pending handle reports isDisposed before dispose()")
            handle.dispose()
            handle.dispose()
            try ctx.expect(handle.isDisposed, "isDisposed is false after dispose()")
            gate.fire()
            try ctx.quiesce(scheduler)
            handle.dispose()
            try ctx.expect(handle.isDisposed, "isDisposed changed after the scheduler moved on")
            // A handle reports disposal, not completion: one whose action ran stays undisposed
            // until disposed (users test it to know whether they cancelled).
            let ran = Signal()
            let finished = try ctx.unwrap(scheduler.schedule { ran.fire() }, "`schedule` returned no handle")
            try ctx.waitFor(ran, on: scheduler, "an action that is not disposed")
            try ctx.quiesce(scheduler)
            try ctx.expect(!finished.isDisposed, "a handle whose action ran reports isDisposed before dispose()")
            finished.dispose()
            try ctx.expect(finished.isDisposed, "isDisposed is false after dispose() of a handle whose action ran")
        },
        Rule(
            .can3, "a dispose racing the start: ran whole or never started",
            requires: [.cancellation, .asynchronous, .serial], excludes: .virtualTime,
            rationale:
                """
                After `dispose()` returns, an action that had not started must never start; one that started runs to \
                its end.
                """,
            hint:
                """
                the disposed check and the start are one atomic step (a compare-and-swap) made when the action is \
                about to run, not a check followed by a later start, nor one made for a whole batch or before the \
                action ahead of it returned, nor one on another thread than the start.
                """,
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            try disposeRacingTheStart(ctx)
        },
        Rule(
            .can4, "an action may dispose its own handle",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale: "Self-cancelling work (a one-shot that tears itself down) must neither deadlock nor crash.",
            hint: "no lock is held while the action runs, so `dispose()` from inside it cannot deadlock."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let own = Box<(any Disposable)?>(nil)
            let ran = Box(0)
            let done = Signal()
            let handle = scheduler.schedule {
                ran.update { $0 += 1 }
                own.value?.dispose()
                done.fire()
            }
            own.value = try ctx.unwrap(handle, "`schedule` returned no handle")
            gate.fire()
            try ctx.waitFor(done, on: scheduler, "the self-disposing action ran")
            try ctx.quiesce(scheduler)
            try ctx.expect(ran.value == 1, "ran \(ran.value) times")
            try ctx.expect(own.value?.isDisposed == true, "the handle is not disposed")
            let after = Signal()
            scheduler.schedule { after.fire() }
            try ctx.waitFor(after, on: scheduler, "an action after the self-disposing one ran")
        },
        Rule(
            .can5, "a disposed delayed action never fires",
            requires: [.cancellation, .timers], excludes: .synchronous,
            rationale: "Timeouts are cancelled all the time; one that fires anyway reports a spurious timeout.",
            hint:
                "the delayed path checks the disposed flag too (a `dispatch_after` block must check it before running)."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let fired = Box(false)
            let deadline = try ctx.deadline(.milliseconds(20), on: scheduler)
            let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { fired.value = true }
            }
            try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
            try ctx.waitPast(deadline, on: scheduler)
            try ctx.expect(!fired.value, "the disposed delayed action fired")
        },
        Rule(
            .can6, "a repeating action disposed while no tick runs never ticks again",
            requires: .repeating, anyOf: [.serial, .virtualTime],
            rationale:
                """
                Polling and heartbeats are stopped by disposal; after `dispose()` returns, not one more tick may start.
                """,
            hint:
                """
                disposal cancels the timer source (or marks the entry so it is not re-armed), and a tick already \
                queued checks the flag before running.
                """,
            check: repeatingDisposedBetweenTicksNeverTicksAgain),
        Rule(
            .can7, "disposing one timer leaves another alone",
            requires: [.cancellation, .timers], excludes: .synchronous,
            rationale:
                "Handles are independent: cancelling one timeout must not cancel a neighbour sharing a timer queue.",
            hint: "disposal targets only its own entry (no shared timer source cancelled, no wrong index removed)."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let deadline = try ctx.deadline(.milliseconds(10), on: scheduler)
            let first = Box(false)
            let second = Signal()
            let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { first.value = true }
            }
            _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { second.fire() }
            }
            try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
            try ctx.waitFor(second, on: scheduler, "the timer that was not disposed fired")
            try ctx.waitPast(deadline, on: scheduler)
            try ctx.expect(!first.value, "the disposed timer fired")
        },
        Rule(
            .can8, "a repeating timer keeps firing when the caller drops its handle",
            requires: .repeating, excludes: .cancelsWhenReleased,
            rationale:
                """
                Only disposal stops a timer; ReactiveCocoa users hit timers that died silently when the handle was \
                released.
                """,
            hint:
                """
                the timer (or its source) is kept alive by the scheduler or by its own handler, not only by the \
                returned handle.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let weak = WeakDisposable()
            let ticks = Box(0)
            let third = Signal()
            do {
                let start = try ctx.deadline(.milliseconds(5), on: scheduler)
                weak.object = try ctx.attempt("repeating") { () throws(SchedulerError) in
                    try scheduler.schedule(at: start, repeatingEvery: .milliseconds(5), leeway: .zero) {
                        guard
                            ticks.update({
                                $0 += 1
                                return $0
                            }) == 3
                        else { return }
                        // Nobody holds the handle now; reach it weakly to clean up.
                        weak.object?.dispose()
                        third.fire()
                    }
                }
            }
            try ctx.waitFor(third, on: scheduler, "three ticks after the handle was dropped")
        },
        Rule(
            .can9, "an action's closure is released after it ran, even while its handle is held",
            anyOf: [.serial, .virtualTime, .synchronous, .trampoline],
            rationale:
                """
                Whatever an action captured (a subscriber, a buffer) must be freed once it ran, or every scheduled \
                action leaks; users keep handles for a subscription's whole life, so a handle that keeps the closure \
                leaks it just the same.
                """,
            hint:
                """
                the scheduler drops its reference to the closure after calling it (no cache of past actions, no cycle \
                through the handle); the handle of a plain, delayed or recursive action does not keep the closure \
                once it ran, nor a disposed repeating timer's handle its tick closure.
                """,
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let live = LiveCounter()
            do {
                let token = live.token()
                scheduler.schedule { blackHole(token) }
            }
            // Twice: a scheduler may release a batch of finished work only after the batch
            // (the first sentinel's included) is done, as SwiftNIO's event loop does.
            try ctx.quiesce(scheduler)
            try ctx.quiesce(scheduler)
            try ctx.expectReleased(live, "the closure is still alive after it ran")
            try closuresReleasedWhileHandlesHeld(ctx)
        },
        Rule(
            .can10, "a disposed action's closure is released once its handle is gone",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale: "Cancelling must free what the action captured, at the latest when the scheduler reaches it.",
            hint:
                """
                disposal (or the skipped run) clears the stored closure, on every path (a timer's, a recursion's, \
                work an action scheduled); the handle does not keep it, nor does a table of pending work.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let live = LiveCounter()
            // The handle is dropped too: where the handle is the work (a DispatchWorkItem, an
            // Operation), it may own the closure for as long as the caller keeps it.
            do {
                let token = live.token()
                let handle = scheduler.schedule { blackHole(token) }
                try ctx.unwrap(handle, "`schedule` returned no handle").dispose()
            }
            gate.fire()
            try ctx.quiesce(scheduler)
            try ctx.quiesce(scheduler)
            try ctx.expectReleased(live, "the disposed action's closure is still alive once the handle is gone")
            try disposedWorkReleasedThroughOtherDoors(ctx, scheduler)
        },
        Rule(
            .can11,
            "a disposed repeating timer keeps nothing alive: its handle and its scheduler are freed once dropped",
            requires: .repeating,
            rationale:
                """
                Polling and heartbeats are started and disposed all day; a timer source that disposal does not tear \
                down keeps firing into nothing and keeps its handle, its scheduler and all they hold for the life of \
                the process.
                """,
            hint:
                """
                disposing cancels the underlying timer (a Dispatch source, a scheduled task), which then lets go of \
                its handler and with it the handle and the scheduler it runs as.
                """
        ) { ctx throws(RuleFailure) in
            try disposedTimersKeepNothingAlive(ctx)
        },
        Rule(
            .can12,
            "a concurrent scheduler releases every closure once it ran, or once it was disposed and its handle dropped",
            requires: .concurrent,
            rationale:
                """
                A concurrent scheduler sees the most work of all (every background fetch, every parallel map); one \
                closure kept in a thousand, or the last one, or every cancelled one, leaks whatever they captured for \
                the life of the process.
                """,
            hint:
                """
                the pool drops its reference to each closure after calling it or skipping it (no history, no \
                `lastAction` for debugging, no list of cancelled work), and a handle does not keep its closure once \
                the work ran.
                """
        ) { ctx throws(RuleFailure) in
            try concurrentClosuresReleased(ctx)
        },
    ]
}
