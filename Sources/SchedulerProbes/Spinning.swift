import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Busy-waits about `iterations` nanoseconds (clock-bound, so an optimiser cannot remove
/// it), to widen race windows.
public func spin(_ iterations: Int) {
    spin(.nanoseconds(iterations))
}

/// Spins `steps` iterations of a loop the optimiser keeps (about a cycle each): a pause finer
/// than a clock read. (A loop calling an empty function is not enough: an optimised build
/// drops calls it can see do nothing.)
package func busySteps(_ steps: Int) {
    core_affinity_busy_steps(steps)
}

/// Busy-waits until `condition` holds or `bound` passed, and says whether it holds. It spins
/// flat out for the first 200 µs, so two threads on two cores meet within a microsecond or
/// so, and then yields between polls, so a thread it waits for on the same core gets to run.
package func spinWait(upTo bound: Duration, until condition: () -> Bool) -> Bool {
    let start = ContinuousClock.now
    let eager = start + .microseconds(200)
    let deadline = start + bound
    while !condition() {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        if now >= eager { sched_yield() }
    }
    return true
}

/// Busy-waits `duration` by the monotonic clock, without giving up the thread: for timing
/// that a sleep's wake-up latency would blur.
@inline(never)
public func spin(_ duration: Duration) {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end {}
}

/// Keeps `value` alive and observed, so the optimiser cannot drop it.
@inline(never)
public func blackHole<T>(_ value: T) {}
