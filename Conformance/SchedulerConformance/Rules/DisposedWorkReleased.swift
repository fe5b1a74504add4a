import SchedulerProbes
import Schedulers

/// CAN-10's other doors: a delayed action disposed before its deadline, released at the
/// latest once the deadline has passed (a scheduler that keeps timers in a table until they
/// fire, and skips a disposed one before removing it, keeps it for its whole life), work an
/// action schedules and disposes at once, released once the scheduler reached it, and a
/// recursion disposed between its runs, released once the scheduler reached its next run, and
/// one disposed while a run asked for after its run returned waited (behind a held action on a
/// real-time scheduler), released once the scheduler reached that run and its `reschedule` went.
/// The delayed action's deadline is 1 ms ahead, so the rule waits little; a thread stopped
/// past it lets the action run before its disposal, which tests nothing, so that trial is
/// made again 10 and 100 ms ahead.
func disposedWorkReleasedThroughOtherDoors(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    if ctx.subject.capabilities.contains(.timers) {
        var disposedInTime = false
        for ahead in [1, 10, 100] where !disposedInTime {
            let live = LiveCounter()
            let ran = Signal()
            let deadline = try ctx.deadline(.milliseconds(ahead), on: scheduler)
            do {
                let token = live.token()
                let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                    try scheduler.schedule(at: deadline) {
                        blackHole(token)
                        ran.fire()
                    }
                }
                try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
            }
            try ctx.waitPast(deadline, on: scheduler)
            try ctx.quiesce(scheduler)
            disposedInTime = !ran.hasFired
            guard disposedInTime else { continue }
            try ctx.expectReleased(
                live, "a delayed action disposed before its deadline still holds its closure once the deadline passed")
        }
        try ctx.requireExercised(
            disposedInTime, "a delayed action ran before its disposal, 1, 10 and 100 ms ahead: this thread was stopped")
    }
    let nestedLive = LiveCounter()
    let nestedDone = Signal()
    scheduler.schedule {
        do {
            let token = nestedLive.token()
            scheduler.schedule { blackHole(token) }?.dispose()
        }
        nestedDone.fire()
    }
    try ctx.waitFor(nestedDone, on: scheduler, "an action that disposes the work it scheduled")
    try ctx.quiesce(scheduler)
    try ctx.expectReleased(
        nestedLive, "work an action scheduled and disposed still holds its closure once the scheduler reached it")
    // In real time the recursion runs on until disposed; in virtual time a drive may run
    // every run due at its instant, so it reschedules once, leaving one run queued.
    let runs = ctx.subject.capabilities.contains(.virtualTime) ? 2 : 1_000_000
    let live = LiveCounter()
    let ran = Signal()
    do {
        let token = live.token()
        let count = Box(0)
        let handle = scheduler.scheduleRecursive { reschedule in
            blackHole(token)
            ran.fire()
            count.value += 1
            if count.value < runs { reschedule() }
        }
        try ctx.waitFor(ran, on: scheduler, "a recursion's first run")
        try ctx.unwrap(handle, "`scheduleRecursive` returned no handle").dispose()
    }
    try ctx.quiesce(scheduler)
    try ctx.quiesce(scheduler)
    try ctx.expectReleased(live, "a recursion disposed between its runs still holds its block once the handle is gone")
    try lateRunReleased(ctx, scheduler)
}

private func lateRunReleased(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let live = LiveCounter()
    do {
        let kept = Box<(@Sendable () -> Void)?>(nil)
        let firstRan = Signal()
        let handle: (any Disposable)?
        do {
            let token = live.token()
            handle = scheduler.scheduleRecursive { reschedule in
                blackHole(token)
                guard kept.value == nil else { return }
                kept.value = reschedule
                firstRan.fire()
            }
        }
        try ctx.waitFor(firstRan, on: scheduler, "a recursion's first run")
        try ctx.settle(scheduler)
        let gate = try ctx.hold(scheduler)
        kept.value?()
        try ctx.unwrap(handle, "`scheduleRecursive` returned no handle").dispose()
        kept.value = nil
        gate.fire()
    }
    try ctx.quiesce(scheduler)
    try ctx.expectReleased(
        live,
        """
        a recursion disposed while a run asked for after its run returned waited still holds its block once the \
        handle and the `reschedule` are gone
        """)
}
