import Dispatch
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Runs a `schedule(at:)` whose deadline has already come inline, on the caller's thread:
/// "it is due, why queue it?". Plain `schedule` stays asynchronous.
final class InlineDueDeadlineMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard deadline <= now else { return try super.schedule(at: deadline, action) }
        CurrentScheduler.run(as: self, action)
        return BooleanDisposable()
    }
}

/// A repeating timer whose start has passed runs its first tick inline, then arms the
/// timer for the next grid point: on the grid, first tick at once, and inside the call.
final class RepeatingFirstTickInlineMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        guard deadline <= now else { return super.makeTimer(deadline: deadline, spec: spec, tick) }
        tick()
        return super.makeTimer(
            deadline: deadline.advancedSaturating(by: UInt64(spec.intervalNanoseconds)), spec: spec, tick)
    }
}

/// Runs a recursion's first run inline; reschedules counted during it, and later ones, go
/// through the queue as they should.
final class RecursiveFirstRunInlineMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let recursion = CompositeDisposable()
        let returned = Atomic<Bool>(false)
        let deferred = Atomic<Int>(0)
        let reschedule: @Sendable () -> Void = {
            if returned.load(ordering: .acquiring) {
                recursion.add(RecursiveScheduling.start(on: self, block))
            } else {
                deferred.wrappingAdd(1, ordering: .relaxed)
            }
        }
        CurrentScheduler.run(as: self) { block(reschedule) }
        returned.store(true, ordering: .releasing)
        for _ in 0..<deferred.load(ordering: .relaxed) { recursion.add(RecursiveScheduling.start(on: self, block)) }
        return recursion
    }
}

/// The "already on the queue" fast path: a due `schedule(at:)` called from one of this
/// scheduler's own actions runs inline, inside the call. From any other thread, and for
/// plain `schedule`, it queues as it should.
final class InlineOnOwnQueueMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard deadline <= now, CurrentScheduler.value === self else { return try super.schedule(at: deadline, action) }
        CurrentScheduler.run(as: self, action)
        return BooleanDisposable()
    }
}

/// Work an action schedules on its own scheduler goes to a list that runs as soon as the
/// action returns (a fast path for follow-up work), ahead of work queued earlier.
final class NestedScheduleJumpsQueueMutant: MutantBase, @unchecked Sendable {
    /// Follow-ups of the action running now, and whether one runs (a tick's are queued as
    /// usual, so none is stranded); only touched on the queue.
    private var followUps: [(SchedulerAction, BooleanDisposable)] = []
    private var running = false

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        // `running` is read only on the queue, where the scheduler is current.
        guard CurrentScheduler.value === self, running else { return super.schedule(action) }
        let disposable = BooleanDisposable()
        followUps.append((action, disposable))
        return disposable
    }

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        running = true
        defer { running = false }
        super.run(action, unless: disposable)
        while !followUps.isEmpty {
            let (next, handle) = followUps.removeFirst()
            super.run(next, unless: handle)
        }
    }
}

/// A handle disposed from inside one of its scheduler's actions defers the disposal to the
/// queue, behind the work already waiting there, so as not to touch the queue from inside
/// it: an action disposed by the one before it still runs.
final class DisposeFromActionDeferredMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        /// What the queue checks, and what the handle reports (at once, as users expect).
        let flag = BooleanDisposable(), asked = BooleanDisposable()
        let owner: DisposeFromActionDeferredMutant

        init(owner: DisposeFromActionDeferredMutant) { self.owner = owner }

        func dispose() {
            asked.dispose()
            guard CurrentScheduler.value === owner else { return flag.dispose() }
            owner.queue.async { [flag] in flag.dispose() }
        }

        var isDisposed: Bool { asked.isDisposed }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = Handle(owner: self)
        queue.async { [flag = handle.flag] in self.run(action, unless: flag) }
        return handle
    }
}

/// Work an action schedules on its own scheduler is queued as a bare block (it is already on
/// the queue, so the wrapper looks redundant): it runs in order, but without the current
/// scheduler.
final class NestedRunsWithoutCurrentMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value === self else { return super.schedule(action) }
        let disposable = BooleanDisposable()
        queue.async {
            if !disposable.isDisposed { action() }
        }
        return disposable
    }
}

/// Fires delayed actions from a timer queue of their own, as the current scheduler, but not
/// through its serial queue: one due while an action runs starts beside it.
final class TimersBesidePlainMutant: MutantBase, @unchecked Sendable {
    private let timers = DispatchQueue(label: "timers-beside-plain.timers")

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        delayed(on: timers, at: deadline, action)
    }
}

/// Runs repeating ticks on a timer queue of its own, not through its serial queue: a tick due
/// while an action runs starts beside it.
final class TicksBesidePlainMutant: MutantBase, @unchecked Sendable {
    private let ticks = DispatchQueue(label: "ticks-beside-plain.ticks")

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        repeatingTimer(on: ticks, deadline: deadline, spec: spec, tick)
    }
}

/// Runs each recursion on a serial queue of its own, as the current scheduler: its runs keep
/// their order, but start beside the scheduler's other actions.
final class RecursionBesidePlainMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        RecursiveScheduling.start(on: MutantBase("\(name).recursion")) { reschedule in
            CurrentScheduler.run(as: self) { block(reschedule) }
        }
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let entryPoint: [Mutant] = [
        mutant("timers-beside-plain", "fires delayed actions on a queue of their own, beside its actions", .ord2) {
            TimersBesidePlainMutant($0)
        },
        mutant("recursion-beside-plain", "runs each recursion on a queue of its own, beside its actions", .ord2) {
            RecursionBesidePlainMutant($0)
        },
        mutant("ticks-beside-plain", "runs repeating ticks on a queue of their own, beside its actions", .ord2) {
            TicksBesidePlainMutant($0)
        },
        mutant("nested-runs-without-current", "runs work its actions schedule without the current scheduler", .cur1) {
            NestedRunsWithoutCurrentMutant($0)
        },
        mutant("nested-schedule-jumps-queue", "runs work its actions schedule ahead of work queued earlier", .lin1) {
            NestedScheduleJumpsQueueMutant($0)
        },
        mutant(
            "dispose-from-action-deferred", "defers a disposal made inside one of its actions behind waiting work",
            .lin1
        ) { DisposeFromActionDeferredMutant($0) },
        mutant("inline-due-deadline", "runs a `schedule(at:)` whose deadline has come inline", .ord5) {
            InlineDueDeadlineMutant($0)
        },
        mutant(
            "repeating-first-tick-inline", "a repeating timer with a past start runs its first tick inside the call",
            .ord5
        ) { RepeatingFirstTickInlineMutant($0) },
        mutant("recursive-first-run-inline", "`scheduleRecursive` runs the first run inside the call", .ord5) {
            RecursiveFirstRunInlineMutant($0)
        },
        mutant("inline-on-own-queue", "a due `schedule(at:)` from its own action runs inline", .ord5) {
            InlineOnOwnQueueMutant($0)
        },
    ]
}
