import Foundation
import SchedulerProbes
import Schedulers

/// CAN-12: a thousand actions, handles held, each capturing a live token: every token is
/// freed once all ran (the handles kept); then as many more, each disposed at once and its
/// handle dropped: freed too, once the scheduler had time to reach them. A concurrent
/// scheduler has no order to wait on, so each check waits up to the must-happen bound: a
/// correct pool frees them well inside it, a leak never does.
func concurrentClosuresReleased(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let count = 1_000
    let live = LiveCounter()
    let ran = Countdown(count)
    var handles: [(any Disposable)?] = []
    handles.reserveCapacity(count)
    for _ in 0..<count {
        let token = live.token()
        handles.append(
            scheduler.schedule {
                blackHole(token)
                ran.tick()
            })
    }
    guard ran.wait(ctx.timing.mustHappen) else {
        throw RuleFailure("\(ran.count) of \(count) actions had not run within \(ctx.timing.mustHappen)")
    }
    if !live.waitForNone(within: ctx.timing.mustHappen) {
        throw RuleFailure(
            """
            \(live.count) of \(count) closures were still alive \(ctx.timing.mustHappen) after all of them ran (their \
            handles held)
            """
        )
    }
    withExtendedLifetime(handles) {}
    guard ctx.subject.capabilities.contains(.cancellation) else { return }
    for _ in 0..<count {
        let token = live.token()
        scheduler.schedule { blackHole(token) }?.dispose()
    }
    if !live.waitForNone(within: ctx.timing.mustHappen) {
        throw RuleFailure(
            """
            \(live.count) of \(count) disposed actions' closures were still alive \(ctx.timing.mustHappen) after they \
            were disposed and their handles dropped
            """
        )
    }
}
