import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Watches how far below its first sample, per thread, the stack has grown.
public final class StackMeter: Sendable {
    /// Growth that no loop-based implementation reaches and every recursive one does
    /// long before it overflows a 512 KiB stack.
    public static let limit: UInt = 256 * 1024

    private let state = Box<(baselines: [UInt: UInt], growth: UInt)>(([:], 0))

    /// A meter with no samples.
    public init() {}

    /// Records the stack position of the calling thread.
    public func sample() {
        let address = ThreadProbe.stackAddress()
        let thread = ThreadProbe.id
        state.update { state in
            let baseline = state.baselines[thread] ?? address
            state.baselines[thread] = max(baseline, address)
            if baseline > address { state.growth = max(state.growth, baseline - address) }
        }
    }

    /// The deepest growth seen on any thread, in bytes.
    public var growth: UInt { state.value.growth }
    /// Whether the growth reached ``limit``.
    public var exceeded: Bool { growth >= Self.limit }
}

/// Counts live tokens: each token decrements the count when it is freed.
public final class LiveCounter: Sendable {
    private let live = Atomic<Int>(0)
    /// Signalled whenever the count drops to zero, so a wait needs no polling.
    private let reachedZero = DispatchSemaphore(value: 0)

    private final class Token: Sendable {
        let counter: LiveCounter
        init(_ counter: LiveCounter) {
            self.counter = counter
            counter.live.wrappingAdd(1, ordering: .relaxed)
        }
        deinit {
            if counter.live.wrappingSubtract(1, ordering: .releasing).newValue == 0 { counter.reachedZero.signal() }
        }
    }

    /// A counter at zero.
    public init() {}

    /// A new live object; the count drops when it is freed.
    public func token() -> any AnyObject & Sendable { Token(self) }
    /// How many tokens are alive.
    public var count: Int { live.load(ordering: .acquiring) }

    /// Waits until no token is alive, up to `bound`; returns whether that happened. A
    /// scheduler may free a finished action a moment after running it (a task's closure
    /// goes when the task ends, after the action returned), so releases are awaited.
    public func waitForNone(within bound: Duration) -> Bool {
        let deadline = DispatchTime.now() + bound.dispatchInterval
        while count > 0 {
            if reachedZero.wait(timeout: deadline) == .timedOut { return count == 0 }
        }
        return true
    }
}

/// The C allocator's count of bytes in use, for rules that weigh what threads leave behind.
public enum HeapMeter {
    /// The bytes the allocator has handed out and not had back, over every thread's arena;
    /// nil where it does not tell, or where its count does not move when this thread allocates
    /// (a sanitizer's allocator stands in for glibc's there).
    public static func bytesInUse() -> Int? {
        isMeasurable ? current() : nil
    }

    private static func current() -> Int? {
        let bytes = core_affinity_heap_bytes_in_use()
        return bytes >= 0 ? bytes : nil
    }

    /// Whether 1,000 blocks of 64 bytes allocated here show in the count: only then does
    /// a count that did not grow mean that nothing was kept. Asked up to three times: other
    /// threads freeing meanwhile can hide one probe's growth, never a count that cannot move.
    private static let isMeasurable: Bool = (0..<3).contains { _ in probeShows() }

    private static func probeShows() -> Bool {
        guard let before = current() else { return false }
        let blocks = (0..<1_000).map { _ in malloc(64) }
        defer {
            for block in blocks { free(block) }
        }
        guard let after = current() else { return false }
        // Used after the reading, so the optimiser cannot drop the allocations.
        for block in blocks { blackHole(block) }
        return after - before >= 64_000
    }
}
