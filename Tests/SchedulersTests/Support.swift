import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// Upper bound for "must happen" waits: generous, because a loaded 2-core machine is slow
/// (and ThreadSanitizer slower still), and only ever reached when the behaviour under test is
/// broken.
let mustHappenDuration: Duration = .seconds(20 * Int(ThreadSanitizerBuild.slowdown))

/// ``mustHappenDuration`` for Dispatch's waits.
let mustHappen = mustHappenDuration.dispatchInterval

extension Signal {
    /// Waits for one firing, at most ``mustHappen``; false if the bound passed first.
    func wait() -> Bool { wait(mustHappenDuration) }
}

/// Runs `body(index)` on `count` new threads released together and waits for all of them
/// (at most ``mustHappen``).
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    _ = Threads.run(count, within: mustHappenDuration, body)
}

/// A weakly held reference, readable from any thread.
final class WeakBox<Object: AnyObject & Sendable>: Sendable {
    private let storage = Lock<Weak>(Weak())
    private struct Weak { weak var object: Object? }
    var object: Object? {
        get { storage.withLock { $0.object } }
        set { storage.withLock { $0.object = newValue } }
    }
}

/// An object to capture in an action, to observe when the action is released.
final class Token: Sendable {}

/// Runs `body` on a new thread that no scheduler drives, and waits for it to finish.
func onFreshThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
    let result = Lock<T?>(nil)
    let done = Signal()
    let thread = Thread {
        let value = body()
        result.withLock { $0 = value }
        done.fire()
    }
    thread.start()
    guard done.wait() else { return nil }
    return result.withLock { $0 }
}

/// Blocks `scheduler` with an action that waits on the returned signal, so that work
/// scheduled afterwards stays pending until the signal fires.
func block(_ scheduler: any Scheduler) -> Signal {
    let release = Signal()
    let started = Signal()
    scheduler.schedule {
        started.fire()
        _ = release.wait()
    }
    _ = started.wait()
    return release
}

/// Schedules a sentinel on a serial scheduler and waits for it: everything scheduled
/// before it has run (or been skipped) when this returns true.
func drain(_ scheduler: any Scheduler) -> Bool {
    let sentinel = Signal()
    scheduler.schedule { sentinel.fire() }
    return sentinel.wait()
}
