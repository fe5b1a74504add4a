import SchedulerProbes
import Schedulers

/// CAN-10's other doors: a delayed action disposed before its deadline, released at the
/// latest once the deadline has passed (a scheduler that keeps timers in a table until they
/// fire, and skips a disposed one before removing it, keeps it for its whole life), and a
/// recursion disposed between its runs, released once the scheduler reached its next run.
func disposedWorkReleasedThroughOtherDoors(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    if ctx.subject.capabilities.contains(.timers) {
        let live = LiveCounter()
        let deadline = try ctx.deadline(.milliseconds(1), on: scheduler)
        do {
            let token = live.token()
            let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { blackHole(token) }
            }
            try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
        }
        try ctx.waitPast(deadline, on: scheduler)
        try ctx.quiesce(scheduler)
        try ctx.expectReleased(
            live, "a delayed action disposed before its deadline still holds its closure once the deadline passed")
    }
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
}
