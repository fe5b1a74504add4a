import Foundation
import Schedulers

/// Who may touch a one-thread program's records: one thread at a time (nested runs on it
/// included), handed on as the program's work moves between threads, never after the run
/// ended.
///
/// A thread that starts an action while another holds it (a subject running two things at
/// once, or one where the profile never starts one) is turned away and the run marked
/// strayed: it touches nothing else, so such a subject is refused, never raced. Taking and
/// giving it back go through one lock, so each holder sees what the ones before it wrote.
final class ProgramToken: Sendable {
    private struct State {
        var thread: pthread_t?
        var depth = 0
        var closed = false
        var strayed = false
    }

    private let state = Lock(State())

    /// Takes the token for this thread; false, marking the run strayed, when another thread
    /// holds it or the run is over.
    func enter() -> Bool {
        let me = pthread_self()
        return state.withLock { state in
            if state.closed || (state.depth > 0 && pthread_equal(state.thread!, me) == 0) {
                state.strayed = true
                return false
            }
            state.thread = me
            state.depth += 1
            return true
        }
    }

    /// Gives back what the matching ``enter()`` took.
    func leave() { state.withLock { $0.depth -= 1 } }

    /// Whether some thread was turned away.
    var strayed: Bool { state.withLock { $0.strayed } }

    /// Ends the run: no action may start after it. False when one that started before had
    /// not returned within `bound`, so the records cannot be read.
    func close(within bound: Duration) -> Bool {
        let deadline = ContinuousClock.now + bound
        while true {
            let idle = state.withLock { state in
                state.closed = true
                return state.depth == 0
            }
            if idle { return true }
            if ContinuousClock.now >= deadline { return false }
            sched_yield()
        }
    }
}
