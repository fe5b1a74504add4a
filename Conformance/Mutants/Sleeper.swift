import Schedulers

/// One suspended `sleep` of the suite's hand-written clocks: resumed exactly once, by its
/// clock or by cancellation, whichever comes first, so each clock shares one state machine
/// and differs only where it is meant to. (The reference `VirtualClock` keeps its sleepers
/// under its scheduler's lock instead, which its wake-ups take anyway.)
///
/// A cancel finds either nothing installed yet (and the sleep, once it installs, ends at
/// once) or the continuation (and ends the sleep with `CancellationError`).
package final class Sleeper: Sendable {
    /// Unchecked: the sleeper resumes it exactly once, so the checked kind's extra allocation
    /// per sleep would guard nothing.
    package typealias Continuation = UnsafeContinuation<Void, any Error>

    private struct State {
        var continuation: Continuation?
        /// Set by the first `resume` or `cancel`; the error it carried, if any.
        var finished: (any Error)??
    }

    private let state = Lock(State())

    /// A sleeper not yet resumed.
    package init() {}

    /// Stores the continuation; when the sleeper has been cancelled already, resumes it with
    /// the error instead.
    package func install(_ continuation: Continuation) {
        let finished = state.withLock { state -> (any Error)?? in
            guard state.finished == nil else { return state.finished }
            state.continuation = continuation
            return nil
        }
        guard let finished else { return }
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    /// Cancels the sleeper: throws `CancellationError` from its sleep, unless it was resumed
    /// first.
    package func cancel() { finish(with: CancellationError()) }

    /// Resumes the sleeper normally: its clock took it. Only the first of this and
    /// ``cancel()`` counts.
    package func resume() { finish(with: nil) }

    private func finish(with error: (any Error)?) {
        let continuation = state.withLock { state -> Continuation? in
            guard state.finished == nil else { return nil }
            state.finished = .some(error)
            return state.continuation.take()
        }
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
    }
}
