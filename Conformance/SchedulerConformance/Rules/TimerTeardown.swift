import SchedulerProbes
import Schedulers

/// CAN-11. A leaked timer is invisible to every rule about ticks (a disposed one that keeps
/// firing into a handler that does nothing ticks no more), so the rule looks at what it
/// keeps: the handle and the scheduler, weakly referenced, must go once the timer was
/// disposed and both were dropped. A subject that keeps its schedulers (a shared instance)
/// or its handles cannot show a leak through them: a plain action first proves that both
/// are freed without a timer, or the rule is skipped for the subject.
func disposedTimersKeepNothingAlive(_ ctx: RuleContext) throws(RuleFailure) {
    // The control gets the lateness bound (a subject slow to free is skipped, never failed);
    // the timer gets the "must happen" bound, so a loaded machine cannot fail a correct one.
    let control = try release(ctx, "a plain action", within: ctx.timing.lateness) {
        scheduler, ran throws(RuleFailure) in
        scheduler.schedule { ran.fire() }
    }
    // A property of the subject, not of this run: skipped, not inconclusive.
    guard control.isEmpty else {
        throw RuleFailure(
            "the subject keeps its schedulers or handles (\(control.joined(separator: " and ")) outlived a plain action), so a leak through a timer cannot be seen",
            kind: .skipped)
    }
    let kept = try release(ctx, "a repeating timer disposed after its first tick", within: ctx.timing.mustHappen) {
        scheduler, ran throws(RuleFailure) in
        let start = try ctx.deadline(.milliseconds(1), on: scheduler)
        let handle = try ctx.attempt("repeating every hour") { () throws(SchedulerError) in
            try scheduler.schedule(at: start, repeatingEvery: .seconds(3_600), leeway: .zero) { ran.fire() }
        }
        return handle
    }
    try ctx.expect(
        kept.isEmpty,
        "the repeating timer was disposed and dropped with its scheduler, but \(kept.joined(separator: " and ")) \(kept.count == 1 ? "is" : "are") still alive"
    )
}

/// Makes a scheduler, starts work on it with `start` (which fires its signal when it ran),
/// disposes the handle once it ran, drops both, and returns what is still alive after
/// `bound`: "the scheduler", "the handle", or neither.
private func release(
    _ ctx: RuleContext, _ what: String, within bound: Duration,
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
    // polled, for at most `bound`.
    _ = spinWait(upTo: bound) { !scheduler.isAlive && !handle.isAlive }
    return [(scheduler.isAlive, "the scheduler"), (handle.isAlive, "the handle")].filter(\.0).map(\.1)
}
