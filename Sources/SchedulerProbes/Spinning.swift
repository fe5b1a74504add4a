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
/// so. Then, on a machine with a core to spare, it yields between polls, so a thread it waits
/// for on the same core gets to run; on one whose cores all have work waiting, it naps 20 µs
/// between polls instead (the timer's slack cut for the nap, which would make it 70). A
/// thread that yields there stays in line for its core, and the scheduler sends it to the
/// back of it (a whole time slice of someone else's work); one that naps leaves the line,
/// and having used less than its share, is run as soon as it wakes: so the suite's threads
/// keep their turn for the moments when two of them must run at once.
package func spinWait(upTo bound: Duration, until condition: () -> Bool) -> Bool {
    let start = ContinuousClock.now
    let eager = start + .microseconds(200)
    let deadline = start + bound
    var naps: Bool?
    while !condition() {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        guard now >= eager else { continue }
        if naps == nil { naps = Contention.coresOversubscribed }
        if naps == true { core_affinity_nap(20_000) } else { sched_yield() }
    }
    return true
}

/// Whether every core this process may use has more work waiting than it can run, read at
/// most every 10 ms (a read costs a few microseconds, a wait that asks may be one of many).
package enum Contention {
    /// When the last reading was taken, in uptime nanoseconds, with the reading in bit 0; 0
    /// before the first.
    private static let last = Atomic<UInt64>(0)
    private static let maximumAge: UInt64 = 10_000_000

    /// True when more threads are ready to run than there are cores for them; false when not,
    /// or where that cannot be read.
    package static var coresOversubscribed: Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let reading = last.load(ordering: .relaxed)
        if reading != 0, now &- reading < maximumAge { return reading & 1 == 1 }
        let busy = core_affinity_cores_oversubscribed() == 1
        last.store((now & ~1) | (busy ? 1 : 0), ordering: .relaxed)
        return busy
    }
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
