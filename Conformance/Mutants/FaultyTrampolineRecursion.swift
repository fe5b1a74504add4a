import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// A recursion on ``FaultyTrampolineMutant``, with that trampoline's fault where it is one of
/// recursion: runs go through the trampoline's `schedule`; a reschedule made while a run
/// executes is counted, and one run per count queued once it returns; a later one asks for
/// a run at once.
final class FaultyTrampolineRecursion: Sendable {
    private let trampoline: FaultyTrampolineMutant
    private let block: @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    private let handle = BooleanDisposable()
    /// The thread a run executes on, and the reschedules it made there.
    private let state = Lock<(executingOn: UInt?, deferred: Int)>((nil, 0))

    init(
        on trampoline: FaultyTrampolineMutant,
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) {
        self.trampoline = trampoline
        self.block = block
    }

    private var fault: FaultyTrampolineMutant.Fault { trampoline.fault }

    /// Asks for the first run; returns the handle that stops every further one.
    func start() -> any Disposable {
        requestRun()
        return handle
    }

    private func requestRun() {
        if fault == .queuedRecursionIgnoresDispose, handle.isDisposed { return }
        trampoline.schedule { self.execute() }
    }

    private func execute() {
        guard fault == .queuedRecursionIgnoresDispose || !handle.isDisposed else { return }
        state.withLock { $0 = (ThreadProbe.id, 0) }
        block { self.reschedule() }
        let deferred = state.withLock { state in
            defer { state = (nil, 0) }
            return state.deferred
        }
        for _ in 0..<deferred {
            if fault == .rerunJumpsQueue { trampoline.enqueueFirst { self.execute() } } else { requestRun() }
        }
    }

    private func reschedule() {
        let counted = state.withLock { state in
            guard state.executingOn == ThreadProbe.id else { return false }
            state.deferred += 1
            return true
        }
        guard !counted else { return }
        if trampoline.isBusyOnThisThread {
            if fault == .lateRescheduleLostWhileBusy { return }
            if fault == .lateRescheduleRunsNested { return execute() }
        }
        requestRun()
    }
}
