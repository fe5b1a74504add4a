import SchedulerProbes
import Schedulers

/// REC-2 on a scheduler that can be held: a recursion's runs queue as plain actions do. A
/// run asks for the next one first thing, then is held while three plain actions queue; the
/// next run is queued only once the held one returned, so behind all three (a scheduler that
/// queues it at the call puts it ahead of them, and never re-enters the run, so the first
/// part of the rule cannot tell). Another recursion's first run and a run asked for after an
/// earlier one returned are queued at their calls, in order with the plain actions.
func recursionRunsQueueInOrder(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    guard ctx.canHold else { return }
    let waiting = (0..<3).map { "plain action \($0)" }
    let (firstRun, lateRun, inRun) = (
        "another recursion's first run", "a run asked for after its run returned",
        "the run asked for inside the held run"
    )
    let order = Recorder<String>(expecting: waiting.count + 3)
    let late = LateReschedule()
    defer { late.stop() }
    let gate = Signal()
    defer { gate.fire() }
    let held = ctx.holding(gate)
    let runs = Box(0)
    let handles = [
        late.start(on: scheduler),
        scheduler.scheduleRecursive { reschedule in
            guard
                runs.update({
                    $0 += 1
                    return $0
                }) == 1
            else {
                order.record(inRun)
                return
            }
            reschedule()
            held.body()
        },
    ]
    defer { for handle in handles { handle?.dispose() } }
    try ctx.waitFor(late.firstRan, on: scheduler, "a recursion's first run")
    try ctx.waitFor(held.started, on: scheduler, "the held recursion's first run started")
    for name in waiting { scheduler.schedule { order.record(name) } }
    _ = scheduler.scheduleRecursive { _ in order.record(firstRun) }
    late.later.value = { order.record(lateRun) }
    late.reschedule.value?()
    gate.fire()
    try ctx.waitFor(order.complete, on: scheduler, "the work queued behind a held recursion's run")
    let expected = waiting + [firstRun, lateRun, inRun]
    try ctx.expect(
        order.all == expected,
        """
        a recursion's runs ran out of turn: \(order.all), where \(expected) was due (the run asked for inside the held \
        run is queued once it returned, behind what was queued meanwhile)
        """)
}
