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
    /// The reschedules made by the run executing on each thread: runs asked for late from
    /// other threads execute on those threads' trampolines, beside each other.
    private let deferred = Lock<[UInt: Int]>([:])

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
        let thread = ThreadProbe.id
        deferred.withLock { $0[thread] = 0 }
        block { self.reschedule() }
        let wanted = deferred.withLock { $0.removeValue(forKey: thread) ?? 0 }
        for _ in 0..<wanted {
            if fault == .rerunJumpsQueue { trampoline.enqueueFirst { self.execute() } } else { requestRun() }
        }
    }

    private func reschedule() {
        let thread = ThreadProbe.id
        let counted = deferred.withLock { deferred in
            guard let made = deferred[thread] else { return false }
            deferred[thread] = made + 1
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
