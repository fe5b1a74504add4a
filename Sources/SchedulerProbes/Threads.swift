import Dispatch
import Foundation

/// Threads made for a probe, released together so that their calls can overlap.
public enum Threads {
    /// Runs `body(index)` on `count` new threads released together, and waits for all of
    /// them; false when they had not all finished within `bound`.
    ///
    /// - Parameters:
    ///   - pinned: pin thread `index` to the `index`-th core this process may use (round
    ///     robin; Linux only), so that on a loaded machine the kernel cannot keep all of them
    ///     on one core, where calls never overlap.
    ///   - stackSize: each thread's stack, when the default (512 KiB) is too small.
    public static func run(
        _ count: Int, pinned: Bool = false, stackSize: Int? = nil, within bound: Duration,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> Bool {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                if pinned { CorePinning.pinCurrentThread(toCore: index) }
                start.wait()
                body(index)
                group.leave()
            }
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        return group.wait(timeout: .now() + bound.dispatchInterval) == .success
    }
}

extension Duration {
    /// As a `DispatchTimeInterval`, for semaphore waits; a bound too long to express is
    /// as good as forever.
    public var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int((try? checkedNanoseconds()) ?? Int64(Int.max)))
    }
}
