import Foundation
import SchedulerProbes
import Schedulers

/// CAN-1: an action disposed before it starts, from any thread, never runs, and its neighbours
/// still do; nor does a recursion disposed before its first run.
func disposedBeforeItsTurnNeverRuns(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    // Held, so every action below is pending when it is disposed; half are disposed
    // from the rule's thread, half from another one, while the worker is parked.
    let gate = try ctx.hold(scheduler)
    let ran = Recorder<Int>()
    let handles = Box<[Int: any Disposable]>([:])
    for index in 0..<40 {
        let handle = scheduler.schedule { ran.record(index) }
        handles.update { $0[index] = handle }
    }
    let later = Signal()
    scheduler.schedule { later.fire() }
    let disposed = Set(stride(from: 0, to: 40, by: 4)).union(stride(from: 1, to: 40, by: 4))
    for index in disposed.sorted() where index % 4 == 0 {
        try ctx.unwrap(handles.value[index], "`schedule` returned no handle").dispose()
    }
    try ctx.fromAnotherThreadIfAllowed { () throws(RuleFailure) in
        for index in disposed.sorted() where index % 4 == 1 {
            try ctx.unwrap(handles.value[index], "`schedule` returned no handle").dispose()
        }
    }
    // A recursion disposed before its first run, while that run waits behind the rest.
    let recursionRan = Box(false)
    let recursion = scheduler.scheduleRecursive { _ in recursionRan.value = true }
    try ctx.unwrap(recursion, "`scheduleRecursive` returned no handle").dispose()
    gate.fire()
    try ctx.waitFor(later, on: scheduler, "an action scheduled after the disposed ones ran")
    try ctx.quiesce(scheduler)
    try ctx.expect(!recursionRan.value, "a recursion disposed before its first run ran")
    let observed = ran.all
    let wrongly = observed.filter { disposed.contains($0) }
    try ctx.expect(
        wrongly.isEmpty,
        """
        \(wrongly.count) disposed actions ran (first: #\(wrongly.first ?? 0), disposed from \
        \((wrongly.first ?? 0) % 4 == 0 ? "the scheduling thread" : "another thread"))
        """
    )
    let kept = (0..<40).filter { !disposed.contains($0) }
    try ctx.expect(observed == kept, "the actions that were not disposed ran as \(observed), expected \(kept)")
}
