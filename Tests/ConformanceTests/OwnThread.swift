import Dispatch
import Foundation

/// Where the tests run what holds a thread for long: a mutant's ten runs.
enum OwnThread {
    /// At most this many bodies at once in the test process: two, as many as the cooperative
    /// pool has threads on this machine's two cores. Four at once, beside the rest of the
    /// suite, left too few idle cores for rules that race threads (REC-5 passed a mutant in 9
    /// runs of 10, before it measured its sweep).
    private static let slots = DispatchSemaphore(value: 2)

    /// Runs `body` on a thread of its own once a slot is free, and returns what it returns.
    /// A synchronous test body runs on the cooperative pool, one thread per core: a rule run
    /// there holds one of them for seconds, and every asynchronous test of the process (each
    /// command test awaiting its child's output) waits for a thread: 15 s for a bad-input
    /// check that takes 40 ms.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            Thread {
                slots.wait()
                defer { slots.signal() }
                done.resume(returning: body())
            }.start()
        }
    }
}
