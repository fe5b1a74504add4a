import Synchronization

/// One suspended `sleep`: resumed exactly once, by its wake-up or by cancellation, whichever
/// comes first. Package-wide, so the suite's hand-written clocks share the one state machine.
///
/// A wake-up is queued in the same critical section that installs the continuation, so a
/// cancel finds either nothing (and the sleep, once it installs, ends at once) or both (and
/// withdraws the wake-up, unless it has started: then the clock decided first, and the
/// wake-up resumes the sleeper normally). After that, the wake-up's claim and the cancel's
/// withdrawal, one atomic flag, decide who ends the sleep.
///
/// The clock queues the sleeper itself as its wake-up, so a sleep needs no handle of its own.
package final class Sleeper: Sendable {
    /// Unchecked: the sleeper resumes it exactly once, so the checked kind's extra allocation
    /// per sleep would guard nothing.
    package typealias Continuation = UnsafeContinuation<Void, any Error>

    private struct State {
        var continuation: Continuation?
        /// Whether a wake-up of this sleeper was queued (a cancel must then win its claim).
        var wakeUpQueued = false
        /// Set by the first `resume` or `cancel`; the error it carried, if any.
        var finished: (any Error)??
    }

    private let state = Lock(State())
    /// Taken by whichever comes first: the wake-up starting, or a cancel withdrawing it. An
    /// atomic, not the lock: a clock claims under its own lock, which `install` holds this
    /// one to take.
    private let wakeUpClaimed = Atomic<Bool>(false)

    /// A sleeper not yet resumed.
    package init() {}

    /// Stores the continuation and queues the wake-up (`queueWakeUp` queues this sleeper on
    /// the clock and returns true, or false for none: a deadline that never comes, or a clock
    /// that keeps its own sleepers); when the sleeper has been cancelled already, resumes the
    /// continuation with the error instead, queueing nothing.
    package func install(_ continuation: Continuation, queueWakeUp: () -> Bool = { false }) {
        let finished = state.withLock { state -> (any Error)?? in
            guard state.finished == nil else { return state.finished }
            state.continuation = continuation
            state.wakeUpQueued = queueWakeUp()
            return nil
        }
        guard let finished else { return }
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    /// Cancels the sleeper: throws `CancellationError` from its sleep and withdraws its
    /// wake-up, unless the wake-up has already started (it could not be withdrawn), which then
    /// resumes it normally.
    package func cancel() {
        let continuation = state.withLock { state -> Continuation? in
            guard state.finished == nil else { return nil }
            if state.wakeUpQueued, wakeUpClaimed.exchange(true, ordering: .acquiringAndReleasing) { return nil }
            state.finished = .some(CancellationError())
            return state.continuation.take()
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// The clock's side of the race with a cancel: its wake-up of this sleeper starts, so a
    /// cancel from now on leaves the sleeper to it; false when a cancel withdrew it first. A
    /// clock claims where it decides that the wake-up runs (a scheduler, under its lock),
    /// then calls ``resume()``.
    package func claimWakeUp() -> Bool {
        !wakeUpClaimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Resumes the sleeper normally: its wake-up ran (or, for the suite's clocks, it was
    /// taken by an advance). Only the first of this and ``cancel()`` counts.
    package func resume() {
        let continuation = state.withLock { state -> Continuation? in
            guard state.finished == nil else { return nil }
            state.finished = .some(nil)
            return state.continuation.take()
        }
        continuation?.resume()
    }
}
