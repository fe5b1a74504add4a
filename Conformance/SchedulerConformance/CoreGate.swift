import Dispatch
import Schedulers

/// Lets rules run side by side, except a rule that ``Rule/needsIdleCores``: that one waits
/// for the rules running to finish, holds back the rest, and runs alone.
///
/// Rules run side by side where a process judges many at once (parallel tests, the kill
/// counter's threads), or runs many workers at once (`conformance mutate`'s mutants). Most
/// rules only wait there, but a racing rule's evidence is two of its threads running at once
/// on cores nobody else wants: beside other rules' threads it gathers too little and comes
/// out inconclusive, or worse, a race it needed never happens.
///
/// A readers–writer lock on two semaphores (the "turnstile" shape): a racing rule that
/// arrives closes the turnstile, so the rules after it cannot starve it.
package final class CoreGate: Sendable {
    /// Passed by every rule on its way in; held by a racing rule from arrival to its end.
    private let turnstile = DispatchSemaphore(value: 1)
    /// Held while any rule runs side by side with others, or while a racing rule runs.
    private let room = DispatchSemaphore(value: 1)
    /// How many rules run side by side now.
    private let sharing = Lock(0)

    /// A gate with nothing running.
    package init() {}

    /// Runs `body` alone when `exclusive`, else beside any other rule that is not.
    package func run<T>(exclusive: Bool, _ body: () -> T) -> T {
        if exclusive {
            turnstile.wait()
            room.wait()
            defer {
                room.signal()
                turnstile.signal()
            }
            return body()
        }
        turnstile.wait()
        turnstile.signal()
        // The first rule in takes the room for all of them; the last one out gives it back.
        // Waiting inside the lock is the point: later rules queue behind the first one's wait.
        sharing.withLock { count in
            count += 1
            if count == 1 { room.wait() }
        }
        defer {
            sharing.withLock { count in
                count -= 1
                if count == 0 { room.signal() }
            }
        }
        return body()
    }
}
