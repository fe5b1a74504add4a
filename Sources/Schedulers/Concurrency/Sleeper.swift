/// One suspended `sleep`: resumed exactly once, by its deadline or by cancellation,
/// whichever comes first (see ``cancel()``); cancellation also withdraws the scheduled wake-up, so a cancelled
/// sleeper neither runs nor keeps the scheduler (or its closure) busy. Package-wide, so the
/// suite's hand-written clocks share the one state machine.
package final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var wakeUp: (any RevocableDisposable)?
        /// Set by the first `finish` or `cancel`; the error it carried, if any.
        var finished: (any Error)??
    }

    private let state = Lock(State())

    /// A sleeper not yet resumed.
    package init() {}

    /// Stores the continuation; when the sleeper has finished already, resumes it as it
    /// finished (normally, or with the error) instead and returns false.
    package func install(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let finished = state.withLock { state -> (any Error)?? in
            if state.finished == nil { state.continuation = continuation }
            return state.finished
        }
        guard let finished else { return true }
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
        return false
    }

    /// Keeps the scheduled wake-up so cancellation can withdraw it; withdraws it at once when
    /// the sleeper was cancelled before it was kept.
    package func keep(_ wakeUp: (any RevocableDisposable)?) {
        let late = state.withLock { state -> Bool in
            if state.finished != nil { return true }
            state.wakeUp = wakeUp
            return false
        }
        if late { wakeUp?.dispose() }
    }

    /// Cancels the sleeper: throws `CancellationError` from its sleep and withdraws its
    /// wake-up, unless the wake-up has already started (it could not be revoked), which then
    /// resumes it normally: the clock decided first. Decided in one critical section with the
    /// revocation, so a wake-up is either kept before it (and withdrawn here) or after it
    /// (and withdrawn by ``keep(_:)``), never lost in between.
    package func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.finished == nil else { return nil }
            if let wakeUp = state.wakeUp, !wakeUp.revoke() { return nil }
            state.finished = .some(CancellationError())
            defer {
                state.continuation = nil
                state.wakeUp = nil
            }
            return state.continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Resumes the sleeper: normally for `nil` (its wake-up ran), throwing `error` otherwise
    /// (the suite's clocks, which keep their own sleepers, cancel this way). Only the first
    /// of this and ``cancel()`` counts.
    package func finish(_ error: (any Error)?) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.finished == nil else { return nil }
            state.finished = .some(error)
            defer {
                state.continuation = nil
                state.wakeUp = nil
            }
            return state.continuation
        }
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
