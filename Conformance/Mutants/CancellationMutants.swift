import Dispatch
import SchedulerConformance
import SchedulerProbes
import Schedulers
import Synchronization

/// Returns handles that are not connected to the action.
final class IgnoresDisposalMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        _ = super.schedule(action)
        return BooleanDisposable()
    }

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        _ = try super.schedule(at: deadline, action)
        return BooleanDisposable()
    }
}

/// Plain actions cancel correctly; delayed ones return a handle that is not connected.
final class TimerDisposalIgnoredMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
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

/// Checks the disposed flag, then takes a moment before running: a `dispose()` landing in
/// between returns while the action is about to start anyway.
final class DisposeRaceWindowMutant: MutantBase, @unchecked Sendable {
    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        spin(100_000)
        CurrentScheduler.run(as: self, action)
    }
}

/// Handles live in numbered slots; disposing slot k also marks slot k + 1 (an off-by-one
/// in the slot arithmetic), so a neighbour scheduled next is silently dropped.
final class DisposesNeighbourMutant: MutantBase, @unchecked Sendable {
    private final class Slot: Disposable {
        let index: Int
        let owner: DisposesNeighbourMutant
        init(_ index: Int, _ owner: DisposesNeighbourMutant) {
            self.index = index
            self.owner = owner
        }
        func dispose() { owner.disposeSlots(index) }
        var isDisposed: Bool { owner.slots.withLock { $0[index]?.isDisposed ?? true } }
    }

    fileprivate let slots = Lock<[Int: BooleanDisposable]>([:])
    private let next = Atomic<Int>(0)

    fileprivate func disposeSlots(_ index: Int) {
        slots.withLock { slots in
            slots[index]?.dispose()
            slots[index + 1]?.dispose()
        }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let flag = BooleanDisposable()
        slots.withLock { $0[index] = flag }
        queue.async {
            self.run(action, unless: flag)
            self.slots.withLock { _ = $0.removeValue(forKey: index) }
        }
        return Slot(index, self)
    }
}

/// A `dispose()` from any thread but the one that scheduled the action is "made safe" by
/// hopping to the scheduler's queue, behind the very action it should have stopped.
final class DisposeHopsToQueueMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        let flag = BooleanDisposable()
        let creator = ThreadProbe.id
        let queue: DispatchQueue
        init(_ queue: DispatchQueue) { self.queue = queue }
        func dispose() {
            guard ThreadProbe.id != creator else { return flag.dispose() }
            queue.async { self.flag.dispose() }
        }
        var isDisposed: Bool { flag.isDisposed }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = Handle(queue)
        queue.async { self.run(action, unless: handle.flag) }
        return handle
    }
}

/// `isDisposed` always answers false, though disposal works.
final class IsDisposedLiesMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        let flag: BooleanDisposable
        init(_ flag: BooleanDisposable) { self.flag = flag }
        func dispose() { flag.dispose() }
        var isDisposed: Bool { false }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let flag = BooleanDisposable()
        queue.async { self.run(action, unless: flag) }
        return Handle(flag)
    }
}

/// `dispose()` toggles instead of setting: a second call revives the action.
final class DisposeTogglesMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        let disposed = Atomic<Bool>(false)
        func dispose() { _ = disposed.logicalXor(true, ordering: .relaxed) }
        var isDisposed: Bool { disposed.load(ordering: .relaxed) }
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = Handle()
        queue.async {
            guard !handle.isDisposed else { return }
            CurrentScheduler.run(as: self, action)
        }
        return handle
    }
}

/// A `dispose()` of the running action's own handle removes "the head of the queue"
/// instead, which by then is the next action: that one is skipped.
final class SelfDisposeSkipsNextMutant: MutantBase, @unchecked Sendable {
    private final class Handle: Disposable {
        let flag = BooleanDisposable()
        let owner: SelfDisposeSkipsNextMutant
        init(_ owner: SelfDisposeSkipsNextMutant) { self.owner = owner }
        func dispose() {
            if owner.running.withLock({ $0 === self }) {
                owner.skipNext.store(true, ordering: .relaxed)
            }
            flag.dispose()
        }
        var isDisposed: Bool { flag.isDisposed }
    }

    private let running = Lock<Handle?>(nil)
    private let skipNext = Atomic<Bool>(false)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let handle = Handle(self)
        queue.async {
            if self.skipNext.exchange(false, ordering: .relaxed) { return }
            guard !handle.isDisposed else { return }
            self.running.withLock { $0 = handle }
            CurrentScheduler.run(as: self, action)
            self.running.withLock { $0 = nil }
        }
        return handle
    }
}

/// Keeps every closure it was ever given.
final class KeepsClosuresMutant: MutantBase, @unchecked Sendable {
    private let kept = Lock<[SchedulerAction]>([])

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        kept.withLock { $0.append(action) }
        return super.schedule(action)
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
        nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)),
            repeating: .nanoseconds(Int(spec.intervalNanoseconds)))
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
