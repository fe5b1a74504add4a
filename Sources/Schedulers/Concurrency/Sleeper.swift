/// One suspended `sleep`: resumed exactly once, by its wake-up or by cancellation, whichever
/// comes first. Package-wide, so the suite's hand-written clocks share the one state machine.
///
/// A wake-up is scheduled in the same critical section that installs the continuation, so a
/// cancel finds either nothing (and the sleep, once it installs, ends at once) or both (and
/// revokes the wake-up, unless it has started: then the clock decided first, and the wake-up
/// resumes the sleeper normally). After that, the wake-up's claim and the cancel's revocation
/// decide who ends the sleep.
package final class Sleeper: Sendable {
    /// Unchecked: the sleeper resumes it exactly once, so the checked kind's extra allocation
    /// per sleep would guard nothing.
    package typealias Continuation = UnsafeContinuation<Void, any Error>

    private struct State {
        var continuation: Continuation?
        var wakeUp: (any RevocableDisposable)?
        /// Set by the first `resume` or `cancel`; the error it carried, if any.
        var finished: (any Error)??
    }

    private let state = Lock(State())

    /// A sleeper not yet resumed.
    package init() {}

    /// Stores the continuation and schedules the wake-up (`wakeUp` returns its handle, nil
    /// for none: a deadline that never comes, or a clock that keeps its own sleepers); when the
    /// sleeper has been cancelled already, resumes the continuation with the error instead,
    /// scheduling nothing.
    package func install(
        _ continuation: Continuation,
        wakeUp: () -> (any RevocableDisposable)? = { nil }
    ) {
        let finished = state.withLock { state -> (any Error)?? in
            guard state.finished == nil else { return state.finished }
            state.continuation = continuation
            state.wakeUp = wakeUp()
            return nil
        }
        guard let finished else { return }
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    /// Cancels the sleeper: throws `CancellationError` from its sleep and withdraws its
    /// wake-up, unless the wake-up has already started (it could not be revoked), which then
    /// resumes it normally.
    package func cancel() {
        let continuation = state.withLock { state -> Continuation? in
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

    /// Resumes the sleeper normally: its wake-up ran (or, for the suite's clocks, it was
    /// taken by an advance). Only the first of this and ``cancel()`` counts.
    package func resume() {
        let continuation = state.withLock { state -> Continuation? in
            guard state.finished == nil else { return nil }
            state.finished = .some(nil)
            defer {
                state.continuation = nil
                state.wakeUp = nil
            }
            return state.continuation
        }
        continuation?.resume()
    }
}
