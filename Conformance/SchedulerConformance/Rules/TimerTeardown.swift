import SchedulerProbes
import Schedulers

/// CAN-11. A leaked timer is invisible to every rule about ticks (a disposed one that keeps
/// firing into a handler that does nothing ticks no more), so the rule looks at what it
/// keeps: the handle and the scheduler, weakly referenced, must go once the timer was
/// disposed and both were dropped.
///
/// A subject that keeps its schedulers (a shared instance) or its handles cannot show a leak
/// through them, and the rule is skipped for it, on evidence: the same instance made twice,
/// or a plain action's scheduler or handle still alive after the "must happen" bound. Never
/// on a shorter wait: a loaded machine that is slow to free a correct subject's plain action
/// must not turn the rule into a skip that a leaking subject then gets too.
func disposedTimersKeepNothingAlive(_ ctx: RuleContext) throws(RuleFailure) {
    // A property of the subject, not of this run: skipped, not inconclusive.
    do {
        let one = ctx.makeScheduler()
        guard one !== ctx.makeScheduler() else {
            throw RuleFailure(
                """
                the subject hands out one shared scheduler, which outlives every timer, so a leak through a timer \
                cannot be seen
                """,
                kind: .skipped)
        }
    }
    let control = try release(ctx, "a plain action") { scheduler, ran throws(RuleFailure) in
        scheduler.schedule { ran.fire() }
    }
    guard control.isEmpty else {
        throw RuleFailure(
            """
            the subject keeps its schedulers or handles (\(control.joined(separator: " and ")) outlived a plain \
            action by \(ctx.timing.mustHappen)), so a leak through a timer cannot be seen
            """,
            kind: .skipped)
    }
    let kept = try release(ctx, "a repeating timer disposed after its first tick") {
        scheduler, ran throws(RuleFailure) in
        let start = try ctx.deadline(.milliseconds(1), on: scheduler)
        let handle = try ctx.attempt("repeating every hour") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: .seconds(3_600), leeway: .zero) { ran.fire() }
        }
        return handle
    }
    try ctx.expect(
        kept.isEmpty,
        """
        the repeating timer was disposed and dropped with its scheduler, but \(kept.joined(separator: " and ")) \
        \(kept.count == 1 ? "is" : "are") still alive after \(ctx.timing.mustHappen), while a plain action's were freed
        """
    )
}

/// Makes a scheduler, starts work on it with `start` (which fires its signal when it ran),
/// disposes the handle once it ran, drops both, and returns what is still alive after the
/// "must happen" bound: "the scheduler", "the handle", or neither. Freeing is prompt in a
/// correct subject, so the bound is only waited out for what is kept.
private func release(
    _ ctx: RuleContext, _ what: String,
    _ start: (any Scheduler, Signal) throws(RuleFailure) -> (any Disposable)?
) throws(RuleFailure) -> [String] {
    let scheduler: WeakObject
    let handle: WeakObject
    do {
        let made = ctx.makeScheduler()
        scheduler = WeakObject(made)
        let ran = Signal()
        let started = try start(made, ran)
        try ctx.waitFor(ran, on: made, "\(what) ran")
        started?.dispose()
        handle = WeakObject(started.map { $0 as AnyObject })
        try ctx.settle(made)
    }
    // Nothing signals a deallocation of objects the suite does not own: the references are
    // polled.
    _ = spinWait(upTo: ctx.timing.mustHappen) { !scheduler.isAlive && !handle.isAlive }
    return [(scheduler.isAlive, "the scheduler"), (handle.isAlive, "the handle")].filter(\.0).map(\.1)
}
