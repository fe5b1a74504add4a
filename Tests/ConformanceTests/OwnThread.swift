import Dispatch
import Foundation

/// Where the tests run what holds a thread for long: a rule run, a mutant's ten runs.
enum OwnThread {
    /// At most this many bodies at once in the test process. Most of a rule's time is waiting
    /// (a bound, a timer, a thread to come back), so more of them than cores overlap well,
    /// while a rule that races threads still keeps enough of the cores to gather its evidence.
    private static let slots = DispatchSemaphore(value: 4)

    /// Runs `body` on a thread of its own once a slot is free, and returns what it returns.
    /// A synchronous test body runs on the cooperative pool, one thread per core: a rule run
    /// there holds one of them for seconds, and every other test of the process waits, so the
    /// whole suite would run two tests at a time.
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
