import Dispatch
import Schedulers
import Synchronization

/// Returns handles that are not connected to the action.
final class IgnoresDisposalMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        _ = super.schedule(action)
        return BooleanDisposable()
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        _ = try super.schedule(at: deadline, action)
        return BooleanDisposable()
    }
}

/// Checks the disposed flag only after running the action.
final class DisposeCheckedAfterMutant: MutantBase, @unchecked Sendable {
    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        CurrentScheduler.run(as: self, action)
        _ = disposable.isDisposed
    }
}

/// Keeps every closure it was ever given.
final class KeepsClosuresMutant: MutantBase, @unchecked Sendable {
    private let kept = Mutex<[SchedulerAction]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        kept.withLock { $0.append(action) }
        return super.schedule(action)
    }
}

/// A repeating timer whose disposal only sets a flag nobody reads.
final class RepeatingIgnoresDisposalMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction) -> any Disposable {
        let handle = super.makeTimer(deadline: deadline, spec: spec, tick)
        // Keep the real handle (and so the timer) forever; hand out a dummy.
        leaked.withLock { $0.append(handle) }
        return BooleanDisposable()
    }

    private let leaked = Mutex<[any Disposable]>([])
}

/// A repeating timer that stops when the caller drops its handle.
final class RepeatingDiesWhenDroppedMutant: MutantBase, @unchecked Sendable {
    /// Cancels the timer when released: the fault.
    private final class Handle: Disposable {
        private let cancel: ActionDisposable
        init(_ cancel: ActionDisposable) { self.cancel = cancel }
        func dispose() { cancel.dispose() }
        var isDisposed: Bool { cancel.isDisposed }
        deinit { cancel.dispose() }
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction) -> any Disposable {
        nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)),
            repeating: .nanoseconds(Int(spec.intervalNanoseconds))
        )
        timer.setEventHandler(handler: tick)
        timer.resume()
        return Handle(ActionDisposable { timer.cancel() })
    }
}
