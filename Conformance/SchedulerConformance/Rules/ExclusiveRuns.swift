import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

/// ORD-2: never two actions at once, even while one is held up, whichever threads schedule them.
func actionsNeverOverlap(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    // First a rendezvous: the first action waits for the second to start, which only
    // a scheduler that overlaps them allows (a serial one just lets the wait expire: one
    // quiet window, the time an idle core takes many times over to start queued work).
    // The second judges, so a scheduler that merely reorders them is not blamed here.
    let secondStarted = Signal()
    let firstInside = Box(false)
    let overlapped = Box(false)
    scheduler.schedule {
        firstInside.value = true
        _ = secondStarted.wait(ctx.timing.quietWindow)
        firstInside.value = false
    }
    scheduler.schedule {
        if firstInside.value { overlapped.value = true }
        secondStarted.fire()
    }
    try ctx.quiesce(scheduler)
    try ctx.expect(!overlapped.value, "the second action started while the first was still running")
    // Then the forced case: one action is held up while every producer thread, released
    // together, queues work behind it. Each queued action checks whether the held one
    // is still inside; a scheduler that runs even one in a thousand elsewhere is caught.
    let holding = Box(false)
    let beside = Box(0)
    let sawOverlap = Signal()
    let meter = OverlapMeter()
    let gate = try ctx.hold(scheduler, inside: holding)
    // The held action has been running a while before work arrives: a scheduler
    // that sends work elsewhere when its current action is slow must show it.
    if ctx.canHold { Thread.sleep(forTimeInterval: 0.005) }
    try ctx.onThreads(ctx.producerCount) { _ in
        for _ in 0..<500 {
            scheduler.schedule {
                if holding.value {
                    beside.update { $0 += 1 }
                    sawOverlap.fire()
                }
                meter.enter()
                spin(1_000)
                meter.leave()
            }
        }
    }
    // Time for work handed elsewhere to start beside the held action; ends at once
    // when it does.
    if ctx.canHold { _ = sawOverlap.wait(ctx.timing.quietWindow) }
    gate.fire()
    try ctx.quiesce(scheduler)
    try ctx.expect(
        beside.value == 0,
        """
        \(beside.value) of \(ctx.producerCount * 500) actions started while an earlier action was still running
        """
    )
    try ctx.expect(meter.maximum == 1, "\(meter.maximum) actions ran at the same time")
    // Last, the hand-off between producers and the worker, where overlaps are short
    // and need long actions to be seen (a scheduler that can be held runs on threads
    // of its own; the others run actions only on the caller's thread).
    if ctx.canHold { try exclusiveWithCloseProducers(ctx) }
}
