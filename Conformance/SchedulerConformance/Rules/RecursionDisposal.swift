import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// REC-5: disposal stops every further run, one already queued included, whether it comes
/// from an action queued ahead of the next run or from another thread while the scheduler
/// is held.
func disposingStopsEveryFurtherRun(_ ctx: RuleContext) throws(RuleFailure) {
    // Twice, with the next run provably queued when `dispose()` is called: once from
    // a plain action that run 10 queued ahead of run 11, once from another thread
    // while such an action holds the scheduler.
    for fromOutside in [false, true] where !fromOutside || ctx.canHold {
        let scheduler = ctx.makeScheduler()
        let runs = Box(0)
        let disposedAfter = Box<Int?>(nil)
        let handleBox = Box<(any Disposable)?>(nil)
        let parked = Signal()
        let gate = Signal()
        let disposer = Signal()
        let handleStored = Signal()
        let handle = scheduler.scheduleRecursive { reschedule in
            let run = runs.update {
                $0 += 1
                return $0
            }
            // The disposing action needs the handle, which exists only once
            // `scheduleRecursive` returned.
            if run == 1 { _ = handleStored.wait(ctx.timing.mustHappen) }
            if run == 10 {
                // Queued now, so it runs before run 11, which is scheduled when this
                // block returns.
                scheduler.schedule {
                    if fromOutside {
                        parked.fire()
                        _ = gate.wait(ctx.timing.mustHappen)
                    } else {
                        handleBox.value?.dispose()
                        disposedAfter.value = runs.value
                    }
                    disposer.fire()
                }
            }
            if run < 1_000 { reschedule() }
        }
        let disposable = try ctx.unwrap(handle, "scheduleRecursive returned no handle")
        handleBox.value = disposable
        handleStored.fire()
        if fromOutside {
            try ctx.waitFor(parked, on: scheduler, "run 10's action holding the scheduler")
            try ctx.onFreshThread { disposable.dispose() }
            disposedAfter.value = runs.value
            gate.fire()
        }
        try ctx.waitFor(disposer, on: scheduler, "the action that disposes the recursion")
        // Stepped one action at a time, the virtual scheduler has only run 11 left, and
        // a scheduler that can cancel must have withdrawn it with the recursion: a dead
        // run left in the queue would take a step of a test that counts them.
        if let virtual = scheduler as? any VirtualTimeScheduler,
            ctx.subject.capabilities.contains(.cancellation)
        {
            try ctx.expect(!virtual.step(), "the disposed recursion left its next run pending: step() ran it")
        }
        try ctx.settle(scheduler)
        try ctx.settle(scheduler)
        let atDispose = try ctx.unwrap(disposedAfter.value, "the disposing action did not run")
        try ctx.expect(
            runs.value == atDispose,
            "ran \(runs.value - atDispose) times after dispose() returned ("
                + (fromOutside
                    ? "from another thread while the scheduler was held"
                    : "from an action queued ahead of the next run")
                + ")"
        )
    }
    if ctx.canHold { try disposedLateRunNeverStarts(ctx) }
    // The race needs a second thread, which a confined scheduler must never meet.
    if ctx.subject.capabilities.contains(.cancellation), !ctx.subject.capabilities.contains(.threadConfined) {
        try disposeRacingARescheduleLeavesNoRun(ctx)
    }
}

/// REC-5 through the late door: a run asked for after the recursion's run returned waits
/// behind a held action, and the recursion is disposed from another thread meanwhile.
private func disposedLateRunNeverStarts(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let late = LateReschedule()
    defer { late.stop() }
    let recursion = try ctx.unwrap(
        try LateReschedule.start([late], on: scheduler, ctx).first, "scheduleRecursive returned no handle")
    let gate = try ctx.hold(scheduler)
    defer { gate.fire() }
    let ran = Box(false)
    late.rerun { ran.value = true }
    // A run that did not wait behind the held action is ORD-2's to judge, not disposal's.
    try ctx.requireExercised(!ran.value, "the late run started at once, beside the held action")
    try ctx.fromAnotherThreadIfAllowed { recursion.dispose() }
    gate.fire()
    try ctx.quiesce(scheduler)
    try ctx.expect(
        !ran.value,
        """
        a run asked for after the recursion's run returned, queued behind a held action, ran though the recursion was \
        disposed before it started
        """
    )
}
