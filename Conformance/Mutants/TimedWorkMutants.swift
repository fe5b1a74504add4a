import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// Drains the work a timed action schedules in the timer's own turn on the queue, right after
/// the action returns, ahead of work already waiting there (a timer's batch run whole): what a
/// timed action schedules jumps the queue.
final class TimedBatchMutant: MutantBase, @unchecked Sendable {
    /// The thread running a timed action, and the work it scheduled meanwhile.
    private let batch = Lock<(thread: UInt, work: [(SchedulerAction, BooleanDisposable)])?>(nil)

    override func fire(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        batch.withLock { $0 = (ThreadProbe.id, []) }
        CurrentScheduler.run(as: self, action)
        while let (next, handle) = batch.withLock({ state -> (SchedulerAction, BooleanDisposable)? in
            guard let first = state?.work.first else { return nil }
            state?.work.removeFirst()
            return first
        }) {
            run(next, unless: handle)
        }
        batch.withLock { $0 = nil }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = BooleanDisposable()
        let batched = batch.withLock { state -> Bool in
            guard state?.thread == ThreadProbe.id else { return false }
            state?.work.append((action, handle))
            return true
        }
        return batched ? handle : super.schedule(action)
    }
}

/// Runs a timed action as the current scheduler only when its queue was idle as the timer
/// fired; one that fires behind other work runs the bare action (a fast path for a busy queue
/// that forgot to set the current scheduler).
final class BusyTimerNotCurrentMutant: MutantBase, @unchecked Sendable {
    private let busy = Lock(0)

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        busy.withLock { $0 += 1 }
        super.run(action, unless: disposable)
        busy.withLock { $0 -= 1 }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        // Counted as soon as it is queued, so a timer firing behind it sees the queue busy.
        busy.withLock { $0 += 1 }
        let disposable = BooleanDisposable()
        queue.async {
            self.busy.withLock { $0 -= 1 }
            self.run(action, unless: disposable)
        }
        return disposable
    }

    override func fire(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        if busy.withLock({ $0 }) > 0 { action() } else { run(action, unless: disposable) }
    }
}

extension Mutants {
    /// Timed work broken where it meets the rest of the queue: caught by LIN-1's timed scenarios.
    static let timedWork: [Mutant] = [
        mutant(
            "timed-batch-jumps-queue",
            "runs what a timed action schedules right after it, ahead of work already waiting", .lin1
        ) { TimedBatchMutant($0) },
        mutant(
            "busy-timer-not-current", "a timer that fires behind queued work runs without the current scheduler",
            .lin1
        ) { BusyTimerNotCurrentMutant($0) },
    ]
}
