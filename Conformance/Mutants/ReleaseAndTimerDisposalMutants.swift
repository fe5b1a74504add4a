import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

final class KeepsClosuresMutant: MutantBase, @unchecked Sendable {
    private let kept = Lock<[SchedulerAction]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        kept.withLock { $0.append(action) }
        return super.schedule(action)
    }
}

/// A mutant made by `make` as a concurrent scheduler: claiming what a correct one claims,
/// on a concurrent queue of its own.
func concurrentMutant<M: MutantBase>(
    _ name: String, _ make: (String, SchedulerCapabilities, DispatchQueue?) -> M
) -> M {
    make(
        name, [.asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent],
        DispatchQueue(label: name, attributes: .concurrent))
}

/// A concurrent pool that keeps the last closure it ran, "for debugging": one closure alive
/// at a time, which no count of many ever shows.
final class KeepsLastClosureMutant: MutantBase, @unchecked Sendable {
    private let last = Lock<SchedulerAction?>(nil)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        queue.async {
            self.last.withLock { $0 = action }
            self.run(action, unless: disposable)
        }
        return disposable
    }
}

/// Keeps one closure in 500: a leak that a single action never shows.
final class KeepsSomeClosuresMutant: MutantBase, @unchecked Sendable {
    private let kept = Lock<[SchedulerAction]>([])
    private let count = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if count.wrappingAdd(1, ordering: .relaxed).newValue % 500 == 0 { kept.withLock { $0.append(action) } }
        return super.schedule(action)
    }
}

/// Disposed handles go to a "graveyard" that is never emptied, each still holding its
/// closure; run actions are freed as they should be.
final class KeepsDisposedClosuresMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        let flag = BooleanDisposable()
        let action: SchedulerAction
        let owner: KeepsDisposedClosuresMutant
        init(_ action: @escaping SchedulerAction, _ owner: KeepsDisposedClosuresMutant) {
            self.action = action
            self.owner = owner
        }
        func dispose() {
            flag.dispose()
            owner.graveyard.withLock { $0.append(self) }
        }
        var isDisposed: Bool { flag.isDisposed }
    }

    private let graveyard = Lock<[Handle]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = Handle(action, self)
        queue.async { self.run(handle.action, unless: handle.flag) }
        return handle
    }
}

/// Delayed actions due at the same deadline share one timer and one handle: disposing
/// one cancels its neighbours too.
final class SharedDeadlineTimerMutant: MutantBase, @unchecked Sendable {
    private let handles = Lock<[SchedulerTime: BooleanDisposable]>([:])

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let flag = handles.withLock { handles in
            if let shared = handles[deadline] { return shared }
            let flag = BooleanDisposable()
            handles[deadline] = flag
            return flag
        }
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            self.run(action, unless: flag)
        }
        return flag
    }
}

/// A repeating timer whose disposal only sets a flag nobody reads.
final class RepeatingIgnoresDisposalMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = super.makeTimer(deadline: deadline, spec: spec, tick)
        // Keep the real handle (and so the timer) forever; hand out a dummy.
        leaked.withLock { $0.append(handle) }
        return BooleanDisposable()
    }

    private let leaked = Lock<[any Disposable]>([])
}

/// A repeating timer whose handler runs the tick and only then looks at the disposed flag:
/// a tick that falls due after `dispose()` still runs, once.
final class RepeatingExtraTickMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        nonisolated(unsafe) let timer = timerSource(on: queue, deadline: deadline, spec: spec)
        let flag = BooleanDisposable()
        timer.setEventHandler {
            tick()
            if flag.isDisposed { timer.cancel() }
        }
        timer.resume()
        return flag
    }
}

/// Disposing a repeating timer hops to the scheduler's queue to cancel it, behind a tick
/// that fell due meanwhile.
final class RepeatingDisposeDeferredMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = super.makeTimer(deadline: deadline, spec: spec, tick)
        let queue = self.queue
        return ActionDisposable { queue.async { handle.dispose() } }
    }
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

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        nonisolated(unsafe) let timer = timerSource(on: queue, deadline: deadline, spec: spec)
        timer.setEventHandler(handler: tick)
        timer.resume()
        return Handle(ActionDisposable { timer.cancel() })
    }
}

/// A repeating timer whose disposal silences it (each tick checks a flag first) but never
/// cancels the source: it keeps firing into nothing, and its handler keeps the handle, the
/// source and the scheduler alive for good. No tick is ever seen after `dispose()`.
final class SilencedTimerMutant: MutantBase, @unchecked Sendable {
    /// Holds the source, as a correct handle does (Dispatch frees a source nothing holds,
    /// and it would never fire); disposing only raises the flag.
    private final class Handle: Disposable, @unchecked Sendable {
        let silenced = BooleanDisposable()
        let timer: any DispatchSourceTimer
        init(_ timer: any DispatchSourceTimer) { self.timer = timer }
        func dispose() { silenced.dispose() }
        var isDisposed: Bool { silenced.isDisposed }
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        let handle = Handle(timerSource(on: queue, deadline: deadline, spec: spec))
        handle.timer.setEventHandler {
            guard !handle.isDisposed else { return }
            tick()
        }
        handle.timer.resume()
        return handle
    }
}

/// A repeating timer cancelled lazily: `dispose()` raises a flag and the next tick, seeing
/// it, cancels the source. No tick is ever seen after `dispose()`, but until the next one
/// falls due (an hour away, for a timer repeating hourly) the source keeps its handler, the
/// handle and the scheduler.
final class LazilyCancelledTimerMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        nonisolated(unsafe) let timer = timerSource(on: queue, deadline: deadline, spec: spec)
        let handle = BooleanDisposable()
        timer.setEventHandler {
            guard !handle.isDisposed else { return timer.cancel() }
            tick()
        }
        timer.resume()
        return handle
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let releaseAndTimerDisposal: [Mutant] = [
        mutant("repeating-ignores-disposal", "repeating timers never stop", .can6) {
            RepeatingIgnoresDisposalMutant($0)
        },
        mutant("repeating-extra-tick", "a repeating tick checks disposal after running", .can6) {
            RepeatingExtraTickMutant($0)
        },
        mutant("repeating-dispose-deferred", "repeating disposal is queued behind a due tick", .can6) {
            RepeatingDisposeDeferredMutant($0)
        },
        mutant("shared-deadline-timer", "timers due at the same time share one handle", .can7) {
            SharedDeadlineTimerMutant($0)
        },
        mutant("repeating-dies-when-dropped", "repeating timers stop when the handle is dropped", .can8) {
            RepeatingDiesWhenDroppedMutant($0)
        },
        mutant("keeps-closures", "keeps every closure forever", .can9) { KeepsClosuresMutant($0) },
        mutant("silenced-timer", "a disposed repeating timer is silenced, never cancelled", .can11) {
            SilencedTimerMutant($0)
        },
        mutant("lazily-cancelled-timer", "a disposed repeating timer is cancelled by its next tick", .can11) {
            LazilyCancelledTimerMutant($0)
        },
        mutant("keeps-disposed-closures", "disposed handles, each holding its closure, are kept forever", .can10) {
            KeepsDisposedClosuresMutant($0)
        },
        mutant("concurrent-keeps-closures", "a concurrent pool that keeps every closure", .can12) {
            concurrentMutant($0, KeepsClosuresMutant.init(_:claims:queue:))
        },
        mutant("concurrent-keeps-some-closures", "a concurrent pool that keeps one closure in 500", .can12) {
            concurrentMutant($0, KeepsSomeClosuresMutant.init(_:claims:queue:))
        },
        mutant("concurrent-keeps-last-closure", "a concurrent pool that keeps the last closure it ran", .can12) {
            concurrentMutant($0, KeepsLastClosureMutant.init(_:claims:queue:))
        },
        mutant(
            "concurrent-keeps-disposed-closures",
            "a concurrent pool whose handles keep their closures, disposed ones forever",
            .can12
        ) { concurrentMutant($0, KeepsDisposedClosuresMutant.init(_:claims:queue:)) },
        mutant("keeps-some-closures", "keeps one closure in 500 forever", .thr3) {
            KeepsSomeClosuresMutant($0)
        },
    ]
}
