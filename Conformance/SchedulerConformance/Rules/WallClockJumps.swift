import Foundation
import SchedulerProbes
import Schedulers

/// TIM-14: a jump of the wall clock, forwards or backwards, neither stalls nor hastens a timer.
func wallClockJumpsMoveNoTimer(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let step = try ctx.unwrap(ctx.subject.wallClockStep, "no wall-clock step hook")
    // Forwards: a timer due in 200 ms must still wait 200 ms on the suite's clock.
    let forward = Signal()
    let firedAfter = Box<Duration?>(nil)
    let startedAt = RuleContext.referenceNow()
    let delay = Duration.milliseconds(200)
    _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
        try scheduler.schedule(after: delay) {
            firedAfter.value = RuleContext.referenceNow() - startedAt
            forward.fire()
        }
    }
    step(.seconds(3_600))
    try ctx.waitFor(forward, on: scheduler, "the timer after the clock jumped forwards")
    let elapsed = try ctx.unwrap(firedAfter.value, "no firing time")
    try ctx.expect(
        elapsed >= delay, "after the wall clock jumped an hour forwards a 200 ms timer fired after \(elapsed)")
    // Backwards: a timer due in 20 ms must not wait an hour.
    let backward = Signal()
    _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
        try scheduler.schedule(after: .milliseconds(20)) { backward.fire() }
    }
    step(.seconds(-7_200))
    try ctx.waitFor(
        backward, on: scheduler, within: .milliseconds(20) + ctx.timing.lateness * 2,
        "a 20 ms timer after the wall clock jumped back two hours")
    step(.seconds(3_600))
}
