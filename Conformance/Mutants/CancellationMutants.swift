import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

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

/// A handle that marks itself disposed once its action ran (one flag serving for "claimed"
/// and "disposed"): cancellation works, but `isDisposed` reports completion.
final class DisposedOnceRunMutant: MutantBase, @unchecked Sendable {
    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let flag = BooleanDisposable()
        queue.async {
            self.run(action, unless: flag)
            flag.dispose()
        }
        return flag
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let cancellation: [Mutant] = [
        mutant("ignores-disposal", "handles are not connected to actions", .can1) {
            IgnoresDisposalMutant($0)
        },
        mutant("dispose-checked-after", "checks disposal after running", .can1) {
            DisposeCheckedAfterMutant($0)
        },
        mutant("disposes-neighbour", "disposing slot k also disposes slot k + 1", .can1) {
            DisposesNeighbourMutant($0)
        },
        mutant("dispose-hops-to-queue", "a dispose from another thread is queued behind the action", .can1) {
            DisposeHopsToQueueMutant($0)
        },
        mutant("is-disposed-lies", "isDisposed is always false", .can2) { IsDisposedLiesMutant($0) },
        mutant("disposed-once-run", "a handle reports isDisposed once its action ran", .can2) {
            DisposedOnceRunMutant($0)
        },
        mutant("dispose-toggles", "a second dispose() revives the action", .can2) {
            DisposeTogglesMutant($0)
        },
        mutant("dispose-race-window", "checks disposal, then waits 100 µs before running", .can3) {
            DisposeRaceWindowMutant($0)
        },
        mutant("self-dispose-skips-next", "disposing the running action's own handle skips the next action", .can4) {
            SelfDisposeSkipsNextMutant($0)
        },
        mutant("timer-disposal-ignored", "delayed actions' handles are not connected", .can5) {
            TimerDisposalIgnoredMutant($0)
        },
    ]
}
