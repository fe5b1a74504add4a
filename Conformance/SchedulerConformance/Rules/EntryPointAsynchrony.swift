import SchedulerProbes
import Schedulers

/// ORD-5 beyond plain `schedule`: no entry point of an asynchronous scheduler runs its action
/// inside the call. Each entry point the subject claims is called from the rule's own thread
/// (which no scheduler drives) and again from inside one of the scheduler's own actions,
/// where "already on the queue" fast paths live: `schedule`, `schedule(at:)` a second in the
/// past, at the present and a millisecond ahead, a repeating timer whose start has passed
/// (its first tick is due at once), and the first run of `scheduleRecursive`.
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
    @Sendable func callEveryEntryPoint(from place: String) {
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
    }

    callEveryEntryPoint(from: "from a plain thread")
    let inside = Signal()
    scheduler.schedule {
        callEveryEntryPoint(from: "from inside one of its own actions")
        inside.fire()
    }
    try ctx.waitFor(inside, on: scheduler, "an action calling every entry point ran")
    for probe in probes.all {
        try ctx.waitFor(probe.ran, on: scheduler, "the action of \(probe.name) ran")
    }
    for handle in handles.all { handle.dispose() }
    try ctx.expect(failures.count == 0, failures.all.joined(separator: "; "), kind: .error)
    let inline = probes.all.filter { $0.inline.value }.map(\.name)
    try ctx.expect(inline.isEmpty, "ran inside the call: \(inline.joined(separator: ", "))")
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
