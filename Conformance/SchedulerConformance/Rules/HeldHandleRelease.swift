import SchedulerProbes
import Schedulers
import Synchronization

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
            """
            the \(what)'s closure is still alive while its handle is \
            held\(handle == nil ? "" : " (the handle keeps it?)")
            """
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
    // A serial, asynchronous worker can be paced; the main queue's is the run loop's, whose
    // wake-ups no pacer controls.
    let paced =
        capabilities.contains([.serial, .asynchronous]) && capabilities.isDisjoint(with: [.virtualTime, .mainThread])
    if paced { try recursionsStartingEarlyReleased(ctx, on: scheduler, holding: held) }
}

/// Recursions whose run starts while `scheduleRecursive` is still returning, handles held,
/// none rescheduling: every block is freed once all ran. A run that a busy queue picks up
/// before the scheduling thread's bookkeeping is done (recording where the run sits in the
/// recursion's handle, say) must clean up after itself all the same.
///
/// The situation is forced and observed, not hoped for: each recursion follows a pacer
/// that spins until the scheduling thread is about to call `scheduleRecursive`, then a few
/// hundred nanoseconds more, so the worker reaches the run while the call may still be
/// returning; one atomic counter stamps the run's start and the call's return. Only a
/// serial, asynchronous scheduler can be paced; the rule goes on until 20 runs started
/// before their call returned (up to 40,000 trials or 20 s, else inconclusive): with every
/// core busy the two threads may share one for seconds on end.
private func recursionsStartingEarlyReleased(
    _ ctx: RuleContext, on scheduler: any Scheduler, holding held: CompositeDisposable
) throws(RuleFailure) {
    let wanted = 20
    let live = LiveCounter()
    let stamps = Atomic<Int>(0)
    var early = 0
    var trials = 0
    var random = SystemRandomNumberGenerator()
    let budget = ContinuousClock.now + Timing.evidenceBudget(.seconds(20))
    let pacerBound = min(ctx.timing.mustHappen, .milliseconds(100))
    // Whether this thread was moved off the pacer's core (and must be let back on it): two
    // threads sharing a core never run at once, and the pacer's spin would only delay us.
    var moved = false
    defer { if moved { CorePinning.unpinCurrentThread() } }
    while early < wanted && trials < 40_000 && ContinuousClock.now < budget {
        let pacerStarted = Signal()
        let go = Signal()
        let linger = Int.random(in: 0...600, using: &random)
        let pacerCore = Box<Int?>(nil)
        scheduler.schedule {
            pacerCore.value = CorePinning.currentCore
            pacerStarted.fire()
            _ = spinWait(upTo: pacerBound) { go.hasFired }
            spin(linger)
        }
        try ctx.spinUntil(pacerStarted, on: scheduler, "pacer \(trials) started")
        if let core = pacerCore.value, core == CorePinning.currentCore {
            if moved { CorePinning.unpinCurrentThread() }
            moved = CorePinning.moveCurrentThread(offCore: core)
        }
        let started = Box(Int.max)
        let token = live.token()
        go.fire()
        let handle = scheduler.scheduleRecursive { _ in
            started.value = stamps.add(1, ordering: .relaxed).newValue
            blackHole(token)
        }
        let returned = stamps.add(1, ordering: .relaxed).newValue
        if let handle { held.add(handle) }
        let ran = Signal()
        scheduler.schedule { ran.fire() }
        try ctx.waitFor(ran, on: scheduler, "a sentinel after recursion \(trials)")
        if started.value < returned { early += 1 }
        trials += 1
    }
    try ctx.quiesce(scheduler)
    try ctx.quiesce(scheduler)
    if !live.waitForNone(within: ctx.timing.lateness) {
        throw RuleFailure(
            """
            \(live.count) of \(trials) recursive blocks are still alive while their handles are held, though each ran \
            once and none rescheduled (\(early) of them started before `scheduleRecursive` returned: a run that \
            starts early must clean up after itself too)
            """
        )
    }
    try ctx.requireExercised(
        early >= wanted,
        """
        only \(early) of \(trials) recursions started before `scheduleRecursive` returned: the worker and the \
        scheduling thread rarely ran at once
        """
    )
}
