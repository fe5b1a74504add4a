import Dispatch
import Foundation

/// Where the tests run what holds a thread for long: a mutant's ten runs, a subject's
/// catalogue, a rule's verdict, an exploration.
enum OwnThread {
    /// Which bodies wait for which places: one rule's verdict does not wait behind a
    /// mutant's ten runs, nor a mutant behind a subject's catalogue.
    enum Lane {
        /// The mutant-kill test's runs (`make test` runs that test in a process of its own).
        case mutants
        /// Every other run of rules or explorations.
        case rules

        /// At most two bodies of a lane at once in the test process, as many as the
        /// cooperative pool has threads on this machine's two cores (these bodies ran there
        /// before, two at a time). Four mutants at once, beside the rest of the suite, left
        /// too few idle cores for rules that race threads (REC-5 passed a mutant in 9 runs of
        /// 10, before it measured its sweep).
        fileprivate var slots: DispatchSemaphore {
            switch self {
            case .mutants: OwnThread.mutantSlots
            case .rules: OwnThread.ruleSlots
            }
        }
    }

    private static let mutantSlots = DispatchSemaphore(value: 2)
    private static let ruleSlots = DispatchSemaphore(value: 2)

    /// Runs `body` on a thread of its own once a place in `lane` is free, and returns what it
    /// returns. A synchronous test body runs on the cooperative pool, one thread per core,
    /// which on Linux is Dispatch's global queues: a rule run there holds one of them for
    /// seconds, every asynchronous test of the process (each command test awaiting its
    /// child's output) waits for a thread (15 s for a bad-input check that takes 40 ms), and
    /// so does a subject on those queues: with two test bodies blocked there, libdispatch
    /// waited its 1 s before adding a thread and a queue scheduler's 5 ms timer fired 965 ms
    /// late.
    static func run<T: Sendable>(_ lane: Lane, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            Thread {
                lane.slots.wait()
                defer { lane.slots.signal() }
                done.resume(returning: body())
            }.start()
        }
    }

    /// Runs `body` once a place in `lane` is free, holding it until `body` returns: for work
    /// that runs in a child process, which loads the cores as a body here would. The wait
    /// for the place is on a thread of its own, not on the cooperative pool.
    static func holding<T: Sendable>(
        _ lane: Lane, _ body: @Sendable () async throws -> T
    ) async rethrows -> T {
        await withCheckedContinuation { (placed: CheckedContinuation<Void, Never>) in
            Thread {
                lane.slots.wait()
                placed.resume()
            }.start()
        }
        defer { lane.slots.signal() }
        return try await body()
    }
}
