import Dispatch

/// A serial queue's actions and jobs, run in batches: what is scheduled while a batch is
/// waiting or running joins the next one instead of costing a Dispatch enqueue of its own.
///
/// Dispatch charges every `async` a block copy, a continuation and an atomic exchange on the
/// queue's tail, and the reference scheduler's action adds its handle on top: 1.11× a bare
/// `DispatchQueue.async` per action. Here the queue sees one `async` per batch, and an action
/// costs its handle, a lock and an append (the batch's array is reused), so a scheduler on a
/// queue costs no more than the queue alone.
///
/// Order is the order of `enqueue` (one lock), and batches run one after another on the
/// queue, so the scheduler stays serial and FIFO. A batch takes only what was pending when it
/// began; what its actions schedule makes the next batch, and after ``roundsPerAsync``
/// batches in a row the queue is handed back with an `async` for the rest, so the queue's
/// other work (a delayed action Dispatch put there when it fell due) is not held off for
/// long by a scheduler that keeps rescheduling itself. Another queue on the same serial
/// target does wait for it, as it does for any Dispatch queue that never empties.
final class SerialDrain: Sendable {
    /// One unit of work: an action with its handle, or an executor's job.
    enum Work: Sendable {
        case action(ScheduledAction)
        case job(UnownedJob, SchedulerExecutor)
    }

    private struct State {
        var pending: [Work] = []
        /// The last batch's array, emptied: the next batch's, so appends seldom allocate.
        var spare: [Work] = []
        /// Whether an `async` of `drain` is on the queue or running.
        var scheduled = false
    }

    /// A spare array up to this many entries (1.5 MB) is kept: glibc maps anything over
    /// 128 KB afresh, so a dropped buffer of a 20,000-job burst cost its page faults again on
    /// every burst (an executor benchmark went from 0.85× a bare queue to 1.35×). A larger one
    /// is dropped, so a burst of a million actions does not keep its buffer for the
    /// scheduler's lifetime.
    private static let keptCapacity = 1 << 16
    /// Batches run per `async` at most: a recursion reschedules one action per batch, and an
    /// `async` for each would cost more than Dispatch alone (+14 % instructions per step).
    static let roundsPerAsync = 64

    let queue: DispatchQueue
    private let state = Lock(State())

    init(queue: DispatchQueue) { self.queue = queue }

    /// Adds `work` to the next batch, and asks the queue for one when none is waiting.
    @inline(__always)
    func enqueue(_ work: Work) {
        let start = state.withLock { state in
            state.pending.append(work)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        // Capturing the one reference keeps the closure free of a context allocation.
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        for _ in 0..<Self.roundsPerAsync where !drainOnce() { return }
        queue.async { self.drain() }
    }

    /// Runs one batch; true when more work is pending (and `scheduled` still set).
    private func drainOnce() -> Bool {
        var batch = state.withLock { state in
            var batch: [Work] = []
            swap(&batch, &state.spare)
            swap(&batch, &state.pending)
            return batch
        }
        // One look-up of the thread's state per batch: each action's scheduler is set for it
        // as `CurrentScheduler.run(as:)` would, and the previous one restored at the end.
        let thread = ThreadState.local
        let previous = thread.current
        for work in batch {
            switch work {
            case .action(let item):
                guard let action = item.claim() else { continue }
                thread.current = item.scheduler
                action()
            case .job(let job, let executor):
                thread.current = executor.scheduler
                executor.run(job)
            }
        }
        thread.current = previous
        batch.removeAll(keepingCapacity: batch.capacity <= Self.keptCapacity)
        return state.withLock { state in
            if batch.capacity > state.spare.capacity { swap(&batch, &state.spare) }
            guard state.pending.isEmpty else { return true }
            state.scheduled = false
            return false
        }
    }
}
