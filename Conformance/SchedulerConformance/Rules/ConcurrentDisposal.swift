import SchedulerProbes
import Schedulers

/// CAN-1 on a concurrent scheduler, which cannot be held: an action disposed before it started
/// never starts. Every fourth action disposes the one scheduled two after it, from a worker
/// (where a pool that takes its work in batches has already looked at that one), and the
/// rule's thread disposes every fourth of the second half once all are queued. An action
/// that starts after its `dispose()` returned is the fault; one that started first is no
/// evidence, and the part is inconclusive unless enough disposals came before their start.
func disposedConcurrentWorkNeverStarts(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let count = 400
    // Disposed from inside an action, and from the rule's thread.
    let fromActions = Set(stride(from: 2, to: count, by: 4))
    let fromRule = Set(stride(from: count / 2 + 3, to: count, by: 4))
    let keptCount = count - fromActions.count - fromRule.count
    let kept = Recorder<Int>(expecting: keptCount)
    let handles = Box<[Int: any Disposable]>([:])
    let disposedFirst = Box<Set<Int>>([])
    let started = Box<Set<Int>>([])
    let startedLate = Recorder<Int>()
    @Sendable func dispose(_ index: Int) {
        guard let handle = handles.value[index] else { return }
        handle.dispose()
        _ = disposedFirst.update { $0.insert(index) }
    }
    for index in 0..<count {
        let handle = scheduler.schedule {
            // Read before the start is recorded: a dispose that returned later raced the start.
            if disposedFirst.value.contains(index) { startedLate.record(index) }
            _ = started.update { $0.insert(index) }
            if fromActions.contains(index + 2) { dispose(index + 2) }
            spin(.microseconds(5))
            if !fromActions.contains(index) && !fromRule.contains(index) { kept.record(index) }
        }
        guard let handle else { throw RuleFailure("`schedule` returned no handle", kind: .error) }
        handles.update { $0[index] = handle }
    }
    for index in fromRule.sorted() { dispose(index) }
    try ctx.waitFor(kept.complete, on: scheduler, "the \(keptCount) actions that were not disposed ran")
    // A disposed action that runs anyway may come after the rest.
    try ctx.settle(scheduler)
    let late = startedLate.all.sorted()
    try ctx.expect(
        late.isEmpty,
        """
        \(late.count) disposed actions started after their dispose() returned (first: #\(late.first ?? 0), disposed \
        from \(fromRule.contains(late.first ?? 0) ? "the rule's thread" : "another action"))
        """
    )
    let effective = disposedFirst.value.subtracting(started.value).count
    try ctx.requireExercised(
        effective >= 20,
        "only \(effective) disposals came before their action started: the workers ran ahead of every dispose")
    ctx.note("\(effective) of \(fromActions.count + fromRule.count) disposals came before their action started")
}
