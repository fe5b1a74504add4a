import Dispatch
import Schedulers
import Synchronization

/// A one-shot signal that can be waited on with an upper bound, or polled.
public final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let fired = Atomic<Int>(0)

    /// A signal that has not fired.
    public init() {}

    /// Fires once (or `times` times, releasing that many waits).
    public func fire(times: Int = 1) {
        fired.wrappingAdd(times, ordering: .releasing)
        for _ in 0..<times { semaphore.signal() }
    }

    /// Whether it has fired at least once.
    public var hasFired: Bool { fired.load(ordering: .acquiring) > 0 }

    /// How many times it fired.
    public var count: Int { fired.load(ordering: .acquiring) }

    /// Waits for one firing; false when `timeout` passed first.
    public func wait(_ timeout: Duration) -> Bool {
        semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .success
    }
}

/// A thread-safe log of values in the order they were recorded.
public final class Recorder<Value: Sendable>: Sendable {
    private let values = Lock<[Value]>([])
    private let expected: Int
    /// Fires when the log first holds the expected number of values.
    public let complete = Signal()
    /// An empty log; ``complete`` fires once it holds `expected` values.
    public init(expecting expected: Int = .max) { self.expected = expected }
    /// Appends `value` and returns its index in the log.
    @discardableResult
    public func record(_ value: Value) -> Int {
        let count = values.withLock {
            $0.append(value)
            return $0.count
        }
        if count == expected { complete.fire() }
        return count - 1
    }
    public var all: [Value] { values.withLock { $0 } }
    public var count: Int { values.withLock { $0.count } }
}

/// Counts actions (or calls) running at once: the peak, and how many began while another
/// was running.
public final class OverlapMeter: Sendable {
    private let running = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    private let overlapping = Atomic<Int>(0)
    /// A meter at zero.
    public init() {}
    /// Marks an action as running; returns whether another was running already.
    @discardableResult
    public func enter() -> Bool {
        let now = running.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        _ = peak.max(now, ordering: .relaxed)
        if now > 1 { overlapping.wrappingAdd(1, ordering: .relaxed) }
        return now > 1
    }
    /// Marks an action as finished.
    public func leave() { running.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
    /// How many are running now.
    public var current: Int { running.load(ordering: .acquiring) }
    /// The most that ran at once.
    public var maximum: Int { peak.load(ordering: .relaxed) }
    /// How many began while another was running.
    public var overlaps: Int { overlapping.load(ordering: .relaxed) }
}

/// A countdown that opens a latch when it reaches zero, waited on with an upper bound by
/// any number of threads.
public final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let zero = DispatchSemaphore(value: 0)

    /// A countdown from `count` (already at zero when `count` is 0).
    public init(_ count: Int) {
        remaining = Atomic(count)
        if count == 0 { zero.signal() }
    }

    /// Counts one down; the tick that reaches zero releases the waiter.
    public func tick() {
        if remaining.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { zero.signal() }
    }

    /// How many ticks are still missing.
    public var count: Int { remaining.load(ordering: .acquiring) }

    /// Waits until zero; false when `bound` passed first.
    public func wait(_ bound: Duration) -> Bool {
        guard zero.wait(timeout: .now() + bound.dispatchInterval) == .success else { return false }
        // Pass the wake-up on, so every waiter sees the latch open.
        zero.signal()
        return true
    }

    /// Waits until zero for as long as the count keeps falling; false once a whole `stall`
    /// passed in which no tick came. Work that drains slowly is slow, not lost: only a stall
    /// says some of it will never come.
    public func wait(whileFalling stall: Duration) -> Bool {
        var last = count
        while !wait(stall) {
            let now = count
            // At zero the last tick is opening the latch.
            guard now == 0 || now < last else { return false }
            last = now
        }
        return true
    }
}
