import Dispatch
import SchedulerVocabulary
import Schedulers

/// A handle that is also the work item: it keeps the action after it ran, for as long as the
/// caller keeps the handle (a subscription's whole life, in a composite).
private final class WorkItemHandle: Disposable {
    let flag = BooleanDisposable()
    let action: SchedulerAction
    init(_ action: @escaping SchedulerAction) { self.action = action }
    func dispose() { flag.dispose() }
    var isDisposed: Bool { flag.isDisposed }
}

/// Plain `schedule` returns a work-item handle that keeps the closure after it ran; dropping
/// the handle frees it, as a rule that drops the handle first will see.
final class OneShotHandleKeepsClosureMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = WorkItemHandle(action)
        queue.async { self.run(handle.action, unless: handle.flag) }
        return handle
    }
}

/// Delayed actions' handles are work items that keep the closure after it ran; plain
/// `schedule` releases as it should.
final class DelayedHandleKeepsClosureMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let handle = WorkItemHandle(action)
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            self.run(handle.action, unless: handle.flag)
        }
        return handle
    }
}

/// A repeating timer's handle keeps the tick closure for later "resume": disposing stops the
/// ticks, but the closure lives as long as the handle.
final class DisposedTimerKeepsTickMutant: MutantBase, @unchecked Sendable {
    private final class TimerHandle: Disposable {
        let timer: any Disposable
        let tick: SchedulerAction
        init(_ timer: any Disposable, _ tick: @escaping SchedulerAction) {
            self.timer = timer
            self.tick = tick
        }
        func dispose() { timer.dispose() }
        var isDisposed: Bool { timer.isDisposed }
    }

    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        TimerHandle(super.makeTimer(deadline: deadline, spec: spec, tick), tick)
    }
}

/// A recursion's handle keeps the block (to "restart" it), so everything the block captured
/// lives as long as the handle, after the recursion ended or was disposed.
final class RecursiveHandleKeepsBlockMutant: MutantBase, @unchecked Sendable {
    private final class RecursionHandle: Disposable {
        let inner: any Disposable
        let block: @Sendable (@escaping @Sendable () -> Void) -> Void
        init(_ inner: any Disposable, _ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
            self.inner = inner
            self.block = block
        }
        func dispose() { inner.dispose() }
        var isDisposed: Bool { inner.isDisposed }
    }

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        RecursionHandle(RecursiveScheduling.start(on: self, block), block)
    }
}

/// Records each recursion's run in the recursion's handle only after scheduling it (as a
/// handle that learns the run's place once `schedule` returned), and a run removes its
/// record when it starts, if it finds one. A run that a busy queue starts before its
/// record is made leaves the record, and the block with it, in the handle until disposal.
final class LateRunRecordMutant: MutantBase, @unchecked Sendable {
    private final class Recursion: Disposable, @unchecked Sendable {
        let records = Lock<[ObjectIdentifier: @Sendable () -> Void]>([:])
        let flag = BooleanDisposable()
        func dispose() {
            flag.dispose()
            records.withLock { $0.removeAll() }
        }
        var isDisposed: Bool { flag.isDisposed }
    }

    private final class Run: Sendable {}

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let recursion = Recursion()
        let run = Run()
        let body: @Sendable () -> Void = { block {} }
        let handle = schedule {
            _ = recursion.records.withLock { $0.removeValue(forKey: ObjectIdentifier(run)) }
            guard !recursion.isDisposed else { return }
            body()
        }
        // The bookkeeping after `schedule` returned: the run's record.
        if handle != nil { recursion.records.withLock { $0[ObjectIdentifier(run)] = body } }
        return recursion
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let heldHandle: [Mutant] = [
        mutant("one-shot-handle-keeps-closure", "a plain action's handle keeps its closure after it ran", .can9) {
            OneShotHandleKeepsClosureMutant($0)
        },
        mutant("delayed-handle-keeps-closure", "a delayed action's handle keeps its closure after it ran", .can9) {
            DelayedHandleKeepsClosureMutant($0)
        },
        mutant("disposed-timer-keeps-tick", "a disposed repeating timer's handle keeps the tick closure", .can9) {
            DisposedTimerKeepsTickMutant($0)
        },
        mutant("recursive-handle-keeps-block", "a recursion's handle keeps the block after the recursion ended", .can9)
        { RecursiveHandleKeepsBlockMutant($0) },
        mutant(
            "late-run-record", "a recursion's run recorded in its handle after scheduling, too late for a fast queue",
            .can9
        ) { LateRunRecordMutant($0) },
    ]
}
