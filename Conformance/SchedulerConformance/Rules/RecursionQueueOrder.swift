import SchedulerProbes
import Schedulers

/// REC-2 on a scheduler that can be held, or in virtual time: a recursion's runs queue as
/// plain actions do. A run asks for the next one first thing; three plain actions, another
/// recursion's first run and a run asked for after an earlier one returned queue while it
/// goes on; the next run is queued only once it returned, so behind all of them (a scheduler
/// that queues it at the call puts it ahead of them, and never re-enters the run, so the
/// first part of the rule cannot tell). The others are queued at their calls, in order.
func recursionRunsQueueInOrder(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let virtual = scheduler is any VirtualTimeScheduler
    guard ctx.canHold || virtual else { return }
    let order = QueueOrder()
    let late = LateReschedule()
    defer { late.stop() }
    let lateHandles = try LateReschedule.start([late], on: scheduler, ctx)
    defer { for handle in lateHandles { handle.dispose() } }
    /// The work queued while the run goes on.
    @Sendable func queueTheRest() {
        for name in order.waiting { scheduler.schedule { order.record(name) } }
        _ = scheduler.scheduleRecursive { _ in order.record(order.firstRun) }
        late.rerun { order.record(order.lateRun) }
    }
    let runs = Box(0)
    if virtual {
        // Nothing runs outside a drive, so the run itself queues the rest, after asking.
        let handle = scheduler.scheduleRecursive { reschedule in
            guard runs.update(QueueOrder.count) == 1 else { return order.record(order.inRun) }
            reschedule()
            queueTheRest()
        }
        defer { handle?.dispose() }
        try ctx.waitFor(order.complete, on: scheduler, "the work queued while a recursion's run went on")
    } else {
        // Held, so the rule's thread queues the rest while the run is provably inside.
        let gate = Signal()
        defer { gate.fire() }
        let held = ctx.holding(gate)
        let handle = scheduler.scheduleRecursive { reschedule in
            guard runs.update(QueueOrder.count) == 1 else { return order.record(order.inRun) }
            reschedule()
            held.body()
        }
        defer { handle?.dispose() }
        try ctx.waitFor(held.started, on: scheduler, "the held recursion's first run started")
        queueTheRest()
        gate.fire()
        try ctx.waitFor(order.complete, on: scheduler, "the work queued behind a held recursion's run")
    }
    try ctx.expect(
        order.all == order.expected,
        """
        a recursion's runs ran out of turn: \(order.all), where \(order.expected) was due (the run asked for inside \
        the run is queued once it returned, behind what was queued meanwhile)
        """)
}

/// The names of the work in REC-2's order part, and the order it ran in.
private final class QueueOrder: Sendable {
    let waiting = (0..<3).map { "plain action \($0)" }
    let firstRun = "another recursion's first run"
    let lateRun = "a run asked for after its run returned"
    let inRun = "the run asked for inside the first run"
    private let log = Recorder<String>(expecting: 6)

    var expected: [String] { waiting + [firstRun, lateRun, inRun] }
    var all: [String] { log.all }
    var complete: Signal { log.complete }

    func record(_ name: String) { log.record(name) }

    /// Counts a run, for `Box.update`.
    static func count(_ runs: inout Int) -> Int {
        runs += 1
        return runs
    }
}
