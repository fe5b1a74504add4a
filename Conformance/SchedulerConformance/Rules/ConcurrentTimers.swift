import SchedulerProbes
import Schedulers
import Synchronization

/// THR-1's second half, for a subject that repeats: each producer thread starts 20
/// repeating timers (every millisecond, from a millisecond on) while the others start
/// theirs, and plain actions go in between: every timer must tick, none is lost to a racing
/// registration (a timer queue's insert made outside its lock loses its neighbours).
func concurrentTimersAllTick(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let producers = ctx.producerCount
    let perProducer = 20
    let total = producers * perProducer
    // Per timer whether it ticked; and how many timers, and plain actions, are still missing.
    let ticked = Box([Bool](repeating: false, count: total))
    let missing = Box((timers: total, plain: total))
    let handles = Box([(any Disposable)?](repeating: nil, count: total))
    let everyTick = Signal()
    let everyPlain = Signal()
    let refused = Box<String?>(nil)
    try ctx.onThreads(producers) { producer in
        for index in 0..<perProducer {
            let slot = producer * perProducer + index
            do {
                let start = try scheduler.now.advanced(by: .milliseconds(1))
                let handle = try scheduler.schedule(at: start, repeatingEvery: .milliseconds(1), leeway: .zero) {
                    let first = ticked.update { ticked -> Bool in
                        defer { ticked[slot] = true }
                        return !ticked[slot]
                    }
                    if first,
                        missing.update({
                            $0.timers -= 1
                            return $0.timers
                        }) == 0
                    {
                        everyTick.fire()
                    }
                }
                handles.update { $0[slot] = handle }
            } catch {
                refused.value = "a repeating timer was refused: \(error)"
            }
            scheduler.schedule {
                if missing.update({
                    $0.plain -= 1
                    return $0.plain
                }) == 0 {
                    everyPlain.fire()
                }
            }
        }
    }
    defer { for handle in handles.value { handle?.dispose() } }
    if let refused = refused.value { throw RuleFailure(refused) }
    try ctx.waitFor(everyPlain, on: scheduler, "the plain actions scheduled between the timers ran")
    try ctx.waitFor(
        everyTick, on: scheduler,
        """
        every one of \(total) repeating timers started from \(producers) threads at once ticked \
        (\(missing.value.timers) never did)
        """
    )
}
