/// One suspended `sleep`: resumed exactly once, by its deadline or by cancellation,
/// whichever comes first (see ``cancel()``); cancellation also withdraws the scheduled wake-up, so a cancelled
/// sleeper neither runs nor keeps the scheduler (or its closure) busy. Package-wide, so the
/// suite's hand-written clocks share the one state machine.
package final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var wakeUp: (any Disposable)?
        /// Set by the first `finish`; the error it carried, if any.
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

    /// Keeps the scheduled wake-up so cancellation can withdraw it.
    package func keep(_ wakeUp: (any Disposable)?) {
        let late = state.withLock { state -> Bool in
            if state.finished != nil { return true }
            state.wakeUp = wakeUp
            return false
        }
        if late { wakeUp?.dispose() }
    }

    /// Cancels the sleeper: throws `CancellationError` from its sleep, unless its wake-up has
    /// already started (a ``RevocableDisposable`` that could not be revoked), which then
    /// resumes it normally: the clock decided first.
    package func cancel() {
        let wakeUp = state.withLock { $0.finished == nil ? $0.wakeUp : nil }
        if let wakeUp = wakeUp as? any RevocableDisposable, !wakeUp.revoke() { return }
        finish(CancellationError())
    }

    /// Resumes the sleeper: normally for `nil`, throwing `error` otherwise. Only the first
    /// call counts.
    package func finish(_ error: (any Error)?) {
        let (continuation, wakeUp) = state.withLock {
            state -> (CheckedContinuation<Void, any Error>?, (any Disposable)?) in
            guard state.finished == nil else { return (nil, nil) }
            state.finished = .some(error)
            defer {
                state.continuation = nil
                state.wakeUp = nil
            }
            return (state.continuation, state.wakeUp)
        }
        if error != nil { wakeUp?.dispose() }
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
