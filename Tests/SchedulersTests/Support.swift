import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Upper bound for "must happen" waits: generous, because a loaded 2-core machine is slow
/// (and ThreadSanitizer slower still), and only ever reached when the behaviour under test is
/// broken.
let mustHappen: DispatchTimeInterval = .seconds(20 * Int(ThreadSanitizerBuild.slowdown))

/// A one-shot signal with an upper-bounded wait.
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func fire() { semaphore.signal() }
    /// Waits for one `fire()`; false if the upper bound passed first.
    func wait(_ timeout: DispatchTimeInterval = mustHappen) -> Bool {
        semaphore.wait(timeout: .now() + timeout) == .success
    }
}

/// A thread-safe log of values, in the order they were recorded.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Lock<[Value]>([])
    func record(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

/// A counter of actions running at once, remembering the highest it saw.
final class OverlapMeter: Sendable {
    private let running = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    func enter() {
        let now = running.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        _ = peak.max(now, ordering: .relaxed)
    }
    func leave() { running.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
    var maximum: Int { peak.load(ordering: .relaxed) }
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

/// A weakly held disposable, readable from any thread.
final class WeakDisposable: Sendable {
    private struct Weak { weak var object: (any Disposable)? }
    private let storage = Lock(Weak())
    var object: (any Disposable)? {
        get { storage.withLock { $0.object } }
        set { storage.withLock { $0.object = newValue } }
    }
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    _ = group.wait(timeout: .now() + mustHappen)
}
