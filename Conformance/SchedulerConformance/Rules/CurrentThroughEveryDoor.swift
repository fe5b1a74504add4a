import Foundation
import SchedulerProbes
import Schedulers

/// CUR-1's other doors: actions scheduled from inside an action (a trampoline drains them
/// after the outer one; a queue may run them from its backlog) and a recursion's reruns,
/// asked for inside a run and after one returned (a scheduler may send either on a shortcut
/// past its own wrapper).
func currentThroughEveryDoor(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let nested = Recorder<Bool>(expecting: 3)
    let runs = Recorder<Bool>(expecting: 4)
    let late = LateReschedule()
    defer { late.stop() }
    let lateRan = Box<Bool?>(nil)
    try ctx.onFreshThread { () throws(RuleFailure) in
        scheduler.schedule {
            for _ in 0..<3 { scheduler.schedule { nested.record(CurrentScheduler.value === scheduler) } }
        }
        try ctx.waitFor(nested.complete, on: scheduler, "three actions scheduled from inside an action ran")
        scheduler.scheduleRecursive { reschedule in
            if runs.record(CurrentScheduler.value === scheduler) < 3 { reschedule() }
        }
        try ctx.waitFor(runs.complete, on: scheduler, "a recursion's first run and three reruns ran")
        let handles = try LateReschedule.start([late], on: scheduler, ctx)
        defer { for handle in handles { handle.dispose() } }
        let ran = Signal()
        late.rerun {
            lateRan.value = CurrentScheduler.value === scheduler
            ran.fire()
        }
        try ctx.waitFor(ran, on: scheduler, "a run asked for after the first one returned")
    }
    try ctx.expect(
        !nested.all.contains(false),
        "current was wrong in \(nested.all.filter { !$0 }.count) of 3 actions scheduled from inside an action")
    try ctx.expect(
        !runs.all.contains(false),
        "current was wrong in \(runs.all.filter { !$0 }.count) of a recursion's 4 runs (the first and 3 reruns)")
    try ctx.expect(lateRan.value != false, "current was wrong in a run asked for after the recursion's run returned")
}

/// CUR-8 through every door: a plain action scheduled from another thread and one scheduled
/// on the main thread outside its actions, one scheduled from inside an action, a delayed
/// one, a repeating one's ticks and a recursion's runs each run on the main thread, with the
/// scheduler current.
func mainThroughEveryDoor(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let capabilities = ctx.subject.capabilities
    let timers = capabilities.contains(.timers)
    let repeating = capabilities.contains(.repeating)
    let wrong = Recorder<String>()
    // Two plain actions, a nested one, two runs of a recursion, and the timed kinds claimed.
    let ran = Recorder<String>(expecting: 5 + (timers ? 1 : 0) + (repeating ? 1 : 0))
    @Sendable func observe(_ door: String) {
        if !Thread.isMainThread { wrong.record("\(door) ran off the main thread") }
        if CurrentScheduler.value !== scheduler { wrong.record("\(door) ran without the scheduler current") }
        ran.record(door)
    }
    scheduler.schedule {
        observe("a plain action")
        scheduler.schedule { observe("an action scheduled from inside an action") }
    }
    DispatchQueue.main.async {
        scheduler.schedule { observe("an action scheduled on the main thread, outside its actions") }
    }
    let runs = Box(0)
    scheduler.scheduleRecursive { reschedule in
        observe("a recursion's run")
        runs.value += 1
        if runs.value < 2 { reschedule() }
    }
    let timer = Box<(any Disposable)?>(nil)
    // On every path: a timer ticking every millisecond would disturb the rules after this one.
    defer { timer.value?.dispose() }
    do {
        if timers {
            _ = try scheduler.schedule(after: .milliseconds(1)) { observe("a delayed action") }
        }
        if repeating {
            let ticked = Box(false)
            timer.value = try scheduler.schedule(repeatingEvery: .milliseconds(1)) {
                guard !ticked.value else { return }
                ticked.value = true
                observe("a repeating action's tick")
            }
        }
    } catch {
        throw RuleFailure("scheduling threw \(error)")
    }
    try ctx.waitFor(ran.complete, on: scheduler, "every kind of work ran (so far: \(ran.all.joined(separator: ", ")))")
    try ctx.expect(wrong.count == 0, wrong.all.joined(separator: "; "))
}
