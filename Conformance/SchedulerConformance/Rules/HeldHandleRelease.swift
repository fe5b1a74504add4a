import SchedulerProbes
import Schedulers

/// CAN-9 with the handle still held: users keep a subscription's handles for its whole life
/// (in a `CompositeDisposable`), so a closure must be freed once it ran (or its timer was
/// disposed) while its handle is alive. A handle that keeps the closure until it is itself
/// released leaks everything the closure captured for as long as the subscription lives;
/// a rule that drops the handle first cannot see that.
///
/// Judged for each entry point the subject claims: a plain action, a delayed one, a repeating
/// timer disposed after its first tick (from outside, while no tick can be in flight: the
/// next one is an hour away), and a recursion whose only run did not reschedule.
func closuresReleasedWhileHandlesHeld(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let capabilities = ctx.subject.capabilities
    let held = CompositeDisposable()
    defer { blackHole(held) }

    /// Schedules through `start` an action capturing a token, waits for it to run, applies
    /// `after` to the handle (still held), and judges the token's release.
    func judge(
        _ what: String,
        after: (any Disposable) -> Void = { _ in },
        _ start: (_ action: @escaping @Sendable () -> Void) throws(RuleFailure) -> (any Disposable)?
    ) throws(RuleFailure) {
        let live = LiveCounter()
        let ran = Signal()
        let handle: (any Disposable)?
        do {
            let token = live.token()
            handle = try start {
                blackHole(token)
                ran.fire()
            }
        }
        if let handle { held.add(handle) }
        try ctx.waitFor(ran, on: scheduler, "the \(what) ran")
        if let handle { after(handle) }
        // Twice, as for a dropped handle: finished work may be released batch by batch.
        try ctx.quiesce(scheduler)
        try ctx.quiesce(scheduler)
        try ctx.expectReleased(
            live,
            "the \(what)'s closure is still alive while its handle is held\(handle == nil ? "" : " (the handle keeps it?)")"
        )
    }

    try judge("plain action") { action in scheduler.schedule(action) }
    if capabilities.contains(.timers) {
        try judge("delayed action") { action throws(RuleFailure) in
            let deadline = try ctx.deadline(.milliseconds(1), on: scheduler)
            return try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline, action)
            }
        }
    }
    if capabilities.contains(.repeating) {
        let disposeAfterFirstTick: (any Disposable) -> Void = { $0.dispose() }
        try judge("repeating timer disposed after its first tick", after: disposeAfterFirstTick) {
            action throws(RuleFailure) in
            let start = try ctx.deadline(.milliseconds(1), on: scheduler)
            return try ctx.attempt("repeating every hour") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: .seconds(3_600), leeway: .zero, action)
            }
        }
    }
    try judge("recursive block that did not reschedule") { action in scheduler.scheduleRecursive { _ in action() } }
}
