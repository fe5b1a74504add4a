import SchedulerProbes
import Schedulers
import Synchronization

/// THR-1's second half, through the other doors: while the other producer threads do the
/// same, each starts 20 of every kind of work the subject offers besides plain actions (a
/// delayed action due in a millisecond, a repeating timer ticking every millisecond from a
/// millisecond on, a recursion that runs twice), with plain actions in between. Every one
/// must run, and a delayed or plain action once: none is lost to a racing registration (a
/// timer queue's insert made outside its lock loses its neighbours), nor run twice.
func everyDoorFromManyThreads(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let capabilities = ctx.subject.capabilities
    let producers = ctx.producerCount
    let perProducer = 20
    let total = producers * perProducer
    var offered: Set<Door> = [.plain, .recursion]
    if capabilities.contains(.timers) { offered.insert(.delayed) }
    if capabilities.contains(.repeating) { offered.insert(.tick) }
    let doors = offered
    // How often each one ran, by door and slot, and how many have not run yet.
    let runs = Box(
        (
            counts: Dictionary(uniqueKeysWithValues: doors.map { ($0, [Int](repeating: 0, count: total)) }),
            missing: doors.count * total
        ))
    let everything = Signal()
    @Sendable func arrived(_ door: Door, _ slot: Int) {
        let missing = runs.update { runs in
            runs.counts[door]![slot] += 1
            if runs.counts[door]![slot] == 1 { runs.missing -= 1 }
            return runs.missing
        }
        if missing == 0 { everything.fire() }
    }
    let handles = Box([(any Disposable)?](repeating: nil, count: total))
    defer { for handle in handles.value { handle?.dispose() } }
    let refused = Box<String?>(nil)
    try ctx.onThreads(producers) { producer in
        for index in 0..<perProducer {
            let slot = producer * perProducer + index
            do {
                if doors.contains(.delayed) {
                    _ = try scheduler.schedule(at: scheduler.now.advanced(by: .milliseconds(1))) {
                        arrived(.delayed, slot)
                    }
                }
                if doors.contains(.tick) {
                    let start = try scheduler.now.advanced(by: .milliseconds(1))
                    let handle = try scheduler.schedule(at: start, repeatingEvery: .milliseconds(1), leeway: .zero) {
                        arrived(.tick, slot)
                    }
                    handles.update { $0[slot] = handle }
                }
            } catch {
                refused.value = "scheduling a timer was refused: \(error)"
            }
            let recursed = Box(false)
            scheduler.scheduleRecursive { reschedule in
                if recursed.update({ recursed in
                    defer { recursed = true }
                    return recursed
                }) {
                    arrived(.recursion, slot)
                } else {
                    reschedule()
                }
            }
            scheduler.schedule { arrived(.plain, slot) }
        }
    }
    if let refused = refused.value { throw RuleFailure(refused) }
    try ctx.waitFor(
        everything, on: scheduler,
        """
        everything \(producers) threads scheduled at once ran (never ran: \
        \(runs.value.counts.map { "\($0.value.count(where: { $0 == 0 })) of \(total) \($0.key.rawValue)" }.sorted()))
        """
    )
    // Time for a second run of a delayed or plain action to show, once the timers stopped (a
    // virtual scheduler would tick them for ever).
    for handle in handles.value { handle?.dispose() }
    try ctx.settle(scheduler)
    let twice = runs.value.counts.filter { $0.key == .delayed || $0.key == .plain }
        .map { ($0.key, $0.value.count(where: { $0 > 1 })) }.filter { $0.1 > 0 }
    try ctx.expect(twice.isEmpty, "ran more than once: \(twice.map { "\($0.1) \($0.0.rawValue)" }.sorted())")
}

/// A kind of work THR-1's second half schedules from every producer.
private enum Door: String, Sendable, Hashable {
    case plain = "plain actions"
    case delayed = "delayed actions"
    case tick = "repeating timers' first ticks"
    case recursion = "recursions' second runs"
}
