import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let subscription: [Rule] = [
        Rule(
            .sub1, "runs inline inside a current scheduler",
            requires: .subscription,
            rationale:
                "Subscribing from code already on a scheduler must not hop: ReactiveCocoa runs it synchronously there.",
            hint: "`schedule` checks `CurrentScheduler.value` and calls the action directly when there is one."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let host = QueueScheduler(name: "SUB-1 host")
            let inline = Box<Bool?>(nil)
            let done = Signal()
            host.schedule {
                // Inline means on this thread, before `schedule` returns; checked on the
                // action's own thread so a fast background run cannot pass for it.
                let caller = ThreadProbe.id
                let returned = Box(false)
                let ranInline = Box(false)
                scheduler.schedule { ranInline.value = ThreadProbe.id == caller && !returned.value }
                returned.value = true
                inline.value = ranInline.value
                done.fire()
            }
            try ctx.waitFor(done, on: host, "the host action ran")
            try ctx.expect(inline.value == true, "the action did not run inline inside a current scheduler")
        },
        Rule(
            .sub2, "without a current scheduler, runs asynchronously on a background scheduler that is then current",
            requires: .subscription,
            excludes: .threadConfined,
            rationale:
                """
                Subscribing from an arbitrary thread moves the work to a background scheduler, which later hops can \
                find as current.
                """,
            hint:
                """
                with no current scheduler, hand the action to a private background scheduler; do not run it on the \
                caller's thread.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let observed = Box<(sameThread: Bool, current: Bool)?>(nil)
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                // Judged by thread, not by "before `schedule` returned": a background run may
                // legitimately start before the caller gets to its next statement.
                let caller = ThreadProbe.id
                scheduler.schedule {
                    observed.value = (ThreadProbe.id == caller, CurrentScheduler.value != nil)
                    done.fire()
                }
                try ctx.waitFor(done, on: scheduler, "the action ran")
            }
            let seen = try ctx.unwrap(observed.value, "no observation")
            try ctx.expect(!seen.sameThread, "the action ran on the caller's thread")
            try ctx.expect(seen.current, "no scheduler was current inside the background action")
        },
        Rule(
            .sub3, "timers, repeating actions and recursion go to the current scheduler",
            requires: [.subscription, .timers],
            rationale: "Delayed, periodic and recursive subscription work belongs to the scheduler the caller is on.",
            hint:
                """
                `schedule(at:)`, the repeating `schedule` and `scheduleRecursive` forward to `CurrentScheduler.value` \
                when there is one that can run them.
                """,
            check: laterWorkGoesToTheCurrentScheduler
        ),
        Rule(
            .sub4, "an inline run leaves the caller's scheduler current, inside and after",
            requires: .subscription,
            rationale:
                """
                Running inline is not a hop: work subscribed from scheduler A that asks for the current scheduler \
                must find A, or it hops away from where it runs.
                """,
            hint:
                """
                the inline path calls the action directly; it does not run it as the subscription scheduler (or any \
                other).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let host = QueueScheduler(name: "SUB-4 host")
            let seen = Box<(inside: Bool, after: Bool)?>(nil)
            let done = Signal()
            host.schedule {
                let inside = Box(false)
                scheduler.schedule { inside.value = CurrentScheduler.value === host }
                seen.value = (inside.value, CurrentScheduler.value === host)
                done.fire()
            }
            try ctx.waitFor(done, on: host, "the host action ran")
            let observed = try ctx.unwrap(seen.value, "no observation")
            try ctx.expect(observed.inside, "inside the inline action the current scheduler was not the caller's")
            try ctx.expect(observed.after, "after the inline action the caller's scheduler was no longer current")
        },
    ]
}

/// SUB-3: from inside an action of a queue scheduler, a delayed action, a repeating one's
/// ticks and a recursion's runs all run on that queue scheduler, as its current one.
private func laterWorkGoesToTheCurrentScheduler(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let host = QueueScheduler(name: "SUB-3 host")
    let repeating = ctx.subject.capabilities.contains(.repeating)
    let delayed = Recorder<Bool>(expecting: 1)
    let ticks = Recorder<Bool>(expecting: 2)
    let runs = Recorder<Bool>(expecting: 2)
    let timer = Box<(any Disposable)?>(nil)
    let failed = Box<SchedulerError?>(nil)
    // On every path, and on the host, after the action that set it: a timer ticking every
    // millisecond would disturb the rules after this one.
    defer { host.schedule { timer.value?.dispose() } }
    host.schedule {
        do throws(SchedulerError) {
            _ = try scheduler.schedule(after: .milliseconds(1)) { delayed.record(CurrentScheduler.value === host) }
            if repeating {
                timer.value = try scheduler.schedule(repeatingEvery: .milliseconds(1)) {
                    ticks.record(CurrentScheduler.value === host)
                }
            }
        } catch {
            failed.value = error
        }
        scheduler.scheduleRecursive { reschedule in
            if runs.record(CurrentScheduler.value === host) == 0 { reschedule() }
        }
    }
    // The recursion, queued last, runs once the host's action has returned.
    try ctx.waitFor(runs.complete, on: host, "the recursion ran twice")
    if let error = failed.value { throw RuleFailure("scheduling from inside the host's action threw \(error)") }
    try ctx.waitFor(delayed.complete, on: host, "the delayed action ran")
    if repeating { try ctx.waitFor(ticks.complete, on: host, "the repeating action ticked twice") }
    try ctx.expect(delayed.all == [true], "the delayed action did not run on the caller's current scheduler")
    try ctx.expect(
        !ticks.all.contains(false), "a repeating action's tick did not run on the caller's current scheduler")
    try ctx.expect(!runs.all.contains(false), "a recursion's run did not run on the caller's current scheduler")
    // Both parts call from a thread of their own, which a confined scheduler must never meet.
    guard !ctx.subject.capabilities.contains(.threadConfined) else { return }
    try lateRunGoesToTheCurrentScheduler(ctx, scheduler, host: host)
    try laterWorkWithoutACurrentGoesToTheBackground(ctx)
}

/// SUB-3 through the late door: a recursion started inside the host's action keeps the host
/// for a run asked for after its run returned, from a thread with no current scheduler.
private func lateRunGoesToTheCurrentScheduler(
    _ ctx: RuleContext, _ scheduler: any Scheduler, host: QueueScheduler
) throws(RuleFailure) {
    let late = LateReschedule()
    defer { late.stop() }
    let recursion = Box<(any Disposable)?>(nil)
    defer { recursion.value?.dispose() }
    host.schedule { recursion.value = late.begin(on: scheduler) }
    try ctx.waitFor(late.firstRan, on: host, "a recursion's first run")
    // It fired inside its block; the host is serial, so an action after it runs once it returned.
    let returned = Signal()
    host.schedule { returned.fire() }
    try ctx.waitFor(returned, on: host, "an action queued behind the recursion's first run")
    let onHost = Box<Bool?>(nil)
    let ran = Signal()
    try ctx.onFreshThread {
        late.rerun {
            onHost.value = CurrentScheduler.value === host
            ran.fire()
        }
    }
    try ctx.waitFor(ran, on: host, "a run asked for after the recursion's run returned")
    try ctx.expect(
        onHost.value == true,
        """
        a run asked for after the recursion's run returned, from a thread with no current scheduler, did not run on \
        the scheduler that was current when the recursion started
        """
    )
}

/// SUB-3 with no current scheduler: from a plain thread, a delayed action, a repeating one's
/// tick and a recursion's runs go where a plain action goes, to the background scheduler:
/// off the caller's thread, with one scheduler current for all of them, never the
/// subscription scheduler itself.
private func laterWorkWithoutACurrentGoesToTheBackground(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let repeating = ctx.subject.capabilities.contains(.repeating)
    let seen = Recorder<(door: String, offCaller: Bool, current: ObjectIdentifier?)>(
        expecting: repeating ? 5 : 4)
    let timer = Box<(any Disposable)?>(nil)
    // On every path: a timer ticking every millisecond would disturb the rules after this one.
    defer { timer.value?.dispose() }
    try ctx.onFreshThread { () throws(RuleFailure) in
        let caller = ThreadProbe.id
        @Sendable func observe(_ door: String) {
            seen.record((door, ThreadProbe.id != caller, CurrentScheduler.value.map { ObjectIdentifier($0) }))
        }
        scheduler.schedule { observe("a plain action") }
        _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
            try scheduler.schedule(after: .milliseconds(1)) { observe("a delayed action") }
        }
        if repeating {
            let ticked = Box(false)
            timer.value = try ctx.attempt("schedule(repeatingEvery:)") { () throws(SchedulerError) in
                try scheduler.schedule(repeatingEvery: .milliseconds(1)) {
                    if !ticked.update({ ticked in
                        defer { ticked = true }
                        return ticked
                    }) {
                        observe("a repeating action's tick")
                    }
                }
            }
        }
        let runs = Box(0)
        scheduler.scheduleRecursive { reschedule in
            observe("a recursion's run")
            if runs.update({
                $0 += 1
                return $0
            }) == 1 {
                reschedule()
            }
        }
        try ctx.waitFor(seen.complete, on: scheduler, "every kind of work ran, with no current scheduler")
    }
    let observed = seen.all
    let onCaller = observed.filter { !$0.offCaller }.map(\.door)
    try ctx.expect(onCaller.isEmpty, "ran on the caller's thread: \(onCaller.joined(separator: ", "))")
    let none = observed.filter { $0.current == nil }.map(\.door)
    try ctx.expect(none.isEmpty, "ran with no current scheduler: \(none.joined(separator: ", "))")
    let itself = observed.filter { $0.current == ObjectIdentifier(scheduler) }.map(\.door)
    try ctx.expect(itself.isEmpty, "ran as the subscription scheduler itself: \(itself.joined(separator: ", "))")
    let elsewhere = observed.filter { $0.current != observed.first?.current }.map(\.door)
    try ctx.expect(
        elsewhere.isEmpty,
        "ran with another scheduler current than the plain action's: \(elsewhere.joined(separator: ", "))"
    )
}
