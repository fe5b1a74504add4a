import Foundation
import SchedulerProbes
import Schedulers

/// ORD-5 beyond plain `schedule`: no entry point of an asynchronous scheduler runs its action
/// inside the call. Each entry point the subject claims is called from the rule's own thread
/// (which no scheduler drives) and again from inside one of the scheduler's own actions,
/// where "already on the queue" fast paths live: `schedule`, `schedule(at:)` a second in the
/// past, at the present and a millisecond ahead, a repeating timer whose start has passed
/// (its first tick is due at once), the first run of `scheduleRecursive`, and a reschedule
/// made after a recursion's run returned (which schedules the next run, never runs it).
///
/// Each call gets its own probe, so calls on different threads cannot confuse each other: an
/// action that runs on the thread that is still inside its call ran inline.
func everyEntryPointIsAsynchronous(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let capabilities = ctx.subject.capabilities
    let probes = Recorder<EntryCallProbe>()
    let handles = Recorder<any Disposable>()
    let failures = Recorder<String>()

    /// Makes every call; `place` says where from, for the message.
    @Sendable func callEveryEntryPoint(from place: String, late: LateReschedule) {
        func probe(_ entry: String, _ call: (EntryCallProbe) throws(SchedulerError) -> (any Disposable)?) {
            let probe = EntryCallProbe("\(entry) (\(place))")
            probes.record(probe)
            probe.caller.value = ThreadProbe.id
            do {
                if let handle = try call(probe) { handles.record(handle) }
            } catch {
                failures.record("\(probe.name) threw \(error)")
                probe.ran.fire()
            }
            probe.caller.value = nil
        }
        probe("schedule(_:)") { probe in scheduler.schedule { probe.action() } }
        if capabilities.contains(.timers) {
            for (what, offset) in [
                ("a second in the past", Duration.seconds(-1)), ("at the present", .zero),
                ("a millisecond ahead", .milliseconds(1)),
            ] {
                probe("schedule(at:) \(what)") { probe throws(SchedulerError) in
                    try scheduler.schedule(at: scheduler.now.advanced(by: offset)) { probe.action() }
                }
            }
        }
        if capabilities.contains(.repeating) {
            probe("a repeating timer started a second ago") { probe throws(SchedulerError) in
                try scheduler.schedule(
                    at: scheduler.now.advanced(by: .seconds(-1)), repeatingEvery: .seconds(3_600), leeway: .zero
                ) { probe.action() }
            }
        }
        probe("scheduleRecursive's first run") { probe in scheduler.scheduleRecursive { _ in probe.action() } }
        probe("a reschedule after the recursion's run returned") { probe in
            late.rerun(probe.action)
            return nil
        }
    }

    let late = [LateReschedule(), LateReschedule()]
    // On every path: the repeating timer ticks hourly until disposed.
    defer {
        for handle in handles.all { handle.dispose() }
        for recursion in late { recursion.stop() }
    }
    for handle in try LateReschedule.start(late, on: scheduler, ctx) { handles.record(handle) }
    callEveryEntryPoint(from: "from a plain thread", late: late[0])
    let inside = Signal()
    scheduler.schedule {
        callEveryEntryPoint(from: "from inside one of its own actions", late: late[1])
        inside.fire()
    }
    try ctx.waitFor(inside, on: scheduler, "an action calling every entry point ran")
    for probe in probes.all {
        try ctx.waitFor(probe.ran, on: scheduler, "the action of \(probe.name) ran")
    }
    try ctx.expect(failures.count == 0, failures.all.joined(separator: "; "), kind: .error)
    let inline = probes.all.filter { $0.inline.value }.map(\.name)
    try ctx.expect(inline.isEmpty, "ran inside the call: \(inline.joined(separator: ", "))")
}

/// ORD-5 on the main thread, for a main-thread scheduler: `schedule(_:)` called there outside
/// its actions, first with nothing of its own queued, then behind an action queued from
/// another thread while the main thread is busy (so it is still pending). The first runs
/// inline only for a subject that declares `.mainThreadSchedule(.inlineWhenIdle)`, and then
/// must; the second never does, and runs after the queued one. Where the main thread is not
/// driven (a Swift Testing process), this part cannot run, and the rule's note says so.
func mainThreadScheduleKeepsItsChoice(_ ctx: RuleContext) throws(RuleFailure) {
    guard ctx.subject.capabilities.contains(.mainThread) else { return }
    let declared = ctx.subject.declared.mainThreadSchedule
    let declaration = Declaration.mainThreadSchedule(.inlineWhenIdle)
    guard ctx.mainThreadDriven else {
        try ctx.requireExercised(
            declared == .alwaysAsynchronous,
            """
            the main thread is not driven in this process, so \(declaration) cannot be judged (run from XCTest's main \
            thread or the `conformance` command)
            """
        )
        ctx.note("no call from the main thread: it is not driven in this process")
        return
    }
    let scheduler = ctx.makeScheduler()
    try ctx.quiesce(scheduler)
    let idle = EntryCallProbe("schedule(_:) on the main thread, nothing queued")
    let behind = EntryCallProbe("schedule(_:) on the main thread behind queued work")
    let order = Recorder<String>(expecting: 3)
    let onMain = Box(false)
    let queued = Signal()
    let done = Signal()
    DispatchQueue.main.async {
        onMain.value = Thread.isMainThread
        idle.caller.value = ThreadProbe.id
        scheduler.schedule {
            order.record("idle")
            idle.action()
        }
        idle.caller.value = nil
        // Queued from another thread while this block holds the main thread: it stays pending
        // until the block returns.
        Thread {
            scheduler.schedule { order.record("queued") }
            queued.fire()
        }.start()
        if queued.wait(ctx.timing.mustHappen) {
            behind.caller.value = ThreadProbe.id
            scheduler.schedule {
                order.record("behind")
                behind.action()
            }
            behind.caller.value = nil
        }
        done.fire()
    }
    try ctx.waitFor(done, on: scheduler, "a block on the main queue calling schedule(_:)")
    try ctx.requireExercised(onMain.value, "the main queue ran its block off the main thread")
    try ctx.expect(queued.hasFired, "schedule(_:) from another thread did not return while the main thread was busy")
    try ctx.waitFor(order.complete, on: scheduler, "the three actions scheduled around the main thread's calls")
    try ctx.expect(
        !behind.inline.value,
        """
        \(behind.name) ran inline, overtaking the action queued before it (an inline run is only for a scheduler with \
        nothing queued)
        """
    )
    try ctx.expect(
        order.all.last == "behind", "ran in the order \(order.all): the later call overtook the queued action")
    if declared == .inlineWhenIdle {
        try ctx.expect(
            idle.inline.value, "\(idle.name) did not run inline, though the subject declares \(declaration)")
    } else {
        try ctx.expect(
            !idle.inline.value,
            """
            \(idle.name) ran inline (a main-thread scheduler that does so by design, as RxSwift's `MainScheduler`, \
            declares \(declaration))
            """
        )
    }
}

/// One call of an entry point: the thread inside the call while it lasts, and whether the
/// action ran on that thread before the call returned.
final class EntryCallProbe: Sendable {
    let name: String
    let caller = Box<UInt?>(nil)
    let inline = Box(false)
    let ran = Signal()

    init(_ name: String) { self.name = name }

    /// The action: notes whether it runs inside its own call.
    func action() {
        if caller.value == ThreadProbe.id { inline.value = true }
        ran.fire()
    }
}
