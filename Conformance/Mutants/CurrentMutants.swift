import Dispatch
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Claims to track the current scheduler but runs actions raw.
final class CurrentNotSetMutant: MutantBase, @unchecked Sendable {
    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        action()
    }
}

/// Sets the current scheduler when an action is scheduled on an idle queue; work that
/// waited behind another action is drained from the backlog raw.
final class CurrentNotSetFromBacklogMutant: MutantBase, @unchecked Sendable {
    private let pending = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let backlog = pending.wrappingAdd(1, ordering: .relaxed).oldValue > 0
        let disposable = BooleanDisposable()
        queue.async {
            defer { self.pending.wrappingSubtract(1, ordering: .relaxed) }
            guard !disposable.isDisposed else { return }
            if backlog { action() } else { CurrentScheduler.run(as: self, action) }
        }
        return disposable
    }
}

final class CurrentNotSetOnTimersMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            if !disposable.isDisposed { action() }
        }
        return disposable
    }
}

/// ReactiveCocoa's gap: repeating actions run raw, without setting the current scheduler.
final class RepeatingWithoutCurrentMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        makeTimer(deadline: deadline, spec: try RepeatSpec(interval: interval, leeway: leeway), action)
    }
}

/// Remembers the caller's current scheduler when an action is scheduled and runs the
/// action as that one (falling back to itself): right when called from nowhere, wrong on
/// every hop from another scheduler.
final class CurrentCapturedAtScheduleMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let captured = CurrentScheduler.explicitValue ?? self
        let disposable = BooleanDisposable()
        queue.async {
            guard !disposable.isDisposed else { return }
            CurrentScheduler.run(as: captured, action)
        }
        return disposable
    }
}

/// A concurrent scheduler that sets the current scheduler only on its first worker: an
/// action that starts while another is running spills onto a helper and runs raw.
final class ConcurrentSpillWithoutCurrentMutant: MutantBase, @unchecked Sendable {
    private let running = Atomic<Int>(0)

    init(_ name: String) {
        super.init(
            name,
            claims: [.asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent],
            queue: DispatchQueue(label: name, attributes: .concurrent)
        )
    }

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        let spilled = running.wrappingAdd(1, ordering: .relaxed).newValue > 1
        if spilled { action() } else { CurrentScheduler.run(as: self, action) }
        running.wrappingSubtract(1, ordering: .relaxed)
    }
}

/// Runs a recursion's first run through `schedule`, and some of its reruns on a shortcut past
/// its own wrapper. Otherwise as the reference: a run's reschedules are queued once its
/// block returned, and one asked for later is queued at once.
final class RerunShortcutMutant: MutantBase, @unchecked Sendable {
    enum Shortcut {
        /// Every rerun straight on its queue: without the current scheduler.
        case everyRerun
        /// Reruns asked for after a run returned straight on its queue.
        case lateRerunsWithoutCurrent
        /// Reruns asked for after a run returned at once on a pool thread, as the current
        /// scheduler ("no run is in flight"): beside whatever action the queue is running.
        case lateRerunsBeside
        /// A rerun asked for inside a run is queued at the call: the serial queue still runs
        /// it only after the run returned, but ahead of work queued while the run went on.
        case inRunRerunsQueuedAtTheCall
        /// A rerun asked for after a run returned is queued as a plain action, which runs the
        /// block without looking at the recursion's disposal ("it was asked for, so it runs").
        case lateRerunsIgnoreDispose
    }

    /// One run's reschedules: counted while its block runs, queued once it returned.
    private final class Run: Sendable {
        let state = Lock((inBlock: true, wanted: 0))
    }

    private let shortcut: Shortcut

    init(_ name: String, _ shortcut: Shortcut) {
        self.shortcut = shortcut
        super.init(name)
    }

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let (queue, shortcut) = (self.queue, self.shortcut)
        @Sendable func runBlock() { start(checked: true) }
        @Sendable func start(checked: Bool) {
            guard !checked || !disposable.isDisposed else { return }
            let run = Run()
            block {
                let late = run.state.withLock { state in
                    if state.inBlock && shortcut != .inRunRerunsQueuedAtTheCall { state.wanted += 1 }
                    return !state.inBlock
                }
                switch (late, shortcut) {
                case (false, .inRunRerunsQueuedAtTheCall), (true, .inRunRerunsQueuedAtTheCall): self.schedule(runBlock)
                case (false, _): break
                case (true, .everyRerun), (true, .lateRerunsWithoutCurrent): queue.async(execute: runBlock)
                case (true, .lateRerunsBeside):
                    DispatchQueue.global().async { CurrentScheduler.run(as: self, runBlock) }
                case (true, .lateRerunsIgnoreDispose):
                    queue.async { CurrentScheduler.run(as: self) { start(checked: false) } }
                }
            }
            let wanted = run.state.withLock { state in
                state.inBlock = false
                return state.wanted
            }
            for _ in 0..<wanted {
                if shortcut == .everyRerun { queue.async(execute: runBlock) } else { schedule { runBlock() } }
            }
        }
        schedule { runBlock() }
        return disposable
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let current: [Mutant] = [
        mutant("current-not-set", "never sets the current scheduler", .cur1) { CurrentNotSetMutant($0) },
        mutant(
            "current-not-set-from-backlog", "actions that waited behind another run without the current scheduler",
            .cur1
        ) { CurrentNotSetFromBacklogMutant($0) },
        mutant("reruns-not-current", "a recursion's reruns run without the current scheduler", .cur1) {
            RerunShortcutMutant($0, .everyRerun)
        },
        mutant(
            "late-reruns-not-current",
            "a recursion's runs asked for after a run returned run without the current scheduler",
            .cur1
        ) { RerunShortcutMutant($0, .lateRerunsWithoutCurrent) },
        mutant(
            "late-reruns-beside", "a recursion's runs asked for after a run returned start at once on a pool thread",
            .ord2
        ) { RerunShortcutMutant($0, .lateRerunsBeside) },
        mutant(
            "in-run-reruns-queued-at-the-call",
            "queues a run asked for inside a run at the call, ahead of work scheduled while the run went on", .rec2
        ) { RerunShortcutMutant($0, .inRunRerunsQueuedAtTheCall) },
        mutant(
            "late-reruns-ignore-dispose",
            "runs asked for after a recursion's run returned run even once the recursion was disposed", .rec5
        ) { RerunShortcutMutant($0, .lateRerunsIgnoreDispose) },
        mutant("current-not-set-on-timers", "delayed actions run without the current scheduler", .cur2) {
            CurrentNotSetOnTimersMutant($0)
        },
        mutant("repeating-without-current", "repeating ticks run without the current scheduler", .cur3) {
            RepeatingWithoutCurrentMutant($0)
        },
        mutant("current-captured-at-schedule", "runs an action as the caller's current scheduler", .cur6) {
            CurrentCapturedAtScheduleMutant($0)
        },
        mutant(
            "concurrent-spill-without-current", "work spilling onto a second worker runs without the current scheduler",
            .cur7
        ) { ConcurrentSpillWithoutCurrentMutant($0) },
    ]
}
