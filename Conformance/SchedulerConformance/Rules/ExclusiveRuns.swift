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
    // A recursion whose first run returned before the hold: a run asked for while the action
    // is held waits behind it like any other work.
    let late = LateReschedule()
    defer { late.stop() }
    let lateHandles = ctx.canHold ? try LateReschedule.start([late], on: scheduler, ctx) : []
    defer { for handle in lateHandles { handle.dispose() } }
    let gate = try ctx.hold(scheduler, inside: holding)
    // Work through the other doors (a timer and a tick due at once, a recursion's first run
    // and a late run), on a scheduler that runs it on a queue of its own, starts beside the
    // held action within the wait below.
    @Sendable func timed() {
        if holding.value {
            beside.update { $0 += 1 }
            sawOverlap.fire()
        }
    }
    let timers = try besideTheHeldAction(ctx, scheduler, timed)
    late.rerun(timed)
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
    for timer in timers { timer.dispose() }
    try ctx.expect(
        beside.value == 0,
        """
        \(beside.value) of \(ctx.producerCount * 500) actions (and the timers scheduled beside them) started while an \
        earlier action was still running
        """
    )
    try ctx.expect(meter.maximum == 1, "\(meter.maximum) actions ran at the same time")
    // Last, the hand-off between producers and the worker, where overlaps are short
    // and need long actions to be seen (a scheduler that can be held runs on threads
    // of its own; the others run actions only on the caller's thread).
    if ctx.canHold { try exclusiveWithCloseProducers(ctx) }
}

/// A delayed action due now, a recursion's first run and a repeating timer's first tick due
/// now, each running `action`, through the doors the subject has besides plain `schedule`
/// (the late run is set up before the hold, by the caller);
/// their handles, to dispose once they had their chance.
private func besideTheHeldAction(
    _ ctx: RuleContext, _ scheduler: any Scheduler, _ action: @escaping SchedulerAction
) throws(RuleFailure) -> [any Disposable] {
    // Only where an action can be held: elsewhere nothing would run beside it, and a virtual
    // scheduler's quiescence would tick the repeating one for ever.
    guard ctx.canHold else { return [] }
    let capabilities = ctx.subject.capabilities
    var handles: [any Disposable] = []
    if capabilities.contains(.timers) {
        let timer = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
            try scheduler.schedule(at: scheduler.now, action)
        }
        if let timer { handles.append(timer) }
    }
    if let handle = scheduler.scheduleRecursive({ _ in action() }) { handles.append(handle) }
    if capabilities.contains(.repeating) {
        let timer = try ctx.attempt("schedule(at:repeatingEvery:)") { () throws(SchedulerError) in
            try scheduler.schedule(at: scheduler.now, repeatingEvery: .seconds(3_600), leeway: .zero, action)
        }
        handles.append(timer)
    }
    return handles
}
