import Dispatch
import Foundation
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A trampoline with one fault; otherwise RxSwift's current-thread scheduler.
final class FaultyTrampolineMutant: Scheduler {
    enum Fault: String, Sendable {
        /// Runs nested actions at once, re-entrantly.
        case eager = "eager-trampoline"
        /// Drains the queue last-in, first-out.
        case lifo = "lifo-trampoline"
        /// Returns handles for nested actions that the drain never checks.
        case ignoresDisposal = "trampoline-ignores-disposal"
        /// Clears the busy flag only when the drain found its queue empty at the start.
        case staysBusy = "trampoline-stays-busy"
        /// Runs each nested action from inside the previous one: the stack grows with the chain.
        case recursiveDrain = "trampoline-recursive-drain"
        /// Queues are per thread, but "some thread is draining" is one shared flag.
        case sharedBusyFlag = "trampoline-shared-busy-flag"
        /// Queues plain actions right, but a recursion's first run does not wait its turn.
        case inlineRecursion = "trampoline-inline-recursion"
        /// Drains what an action queued once it has left the current-scheduler wrapper.
        case nestedNotCurrent = "trampoline-nested-not-current"
        /// Takes its whole queue as one batch, skipping what was disposed when it took it.
        case disposalCheckedPerBatch = "trampoline-disposal-checked-per-batch"
        /// A recursion checks its handle when a run is asked for, not when a queued run starts.
        case queuedRecursionIgnoresDispose = "trampoline-queued-recursion-ignores-dispose"
        /// A run's reschedules go to the front of the thread's queue, ahead of what is waiting.
        case rerunJumpsQueue = "trampoline-rerun-jumps-queue"
        /// A reschedule made after its run returned is dropped while the thread's trampoline is
        /// busy, as if the running drain would pick it up.
        case lateRescheduleLostWhileBusy = "trampoline-late-reschedule-lost-while-busy"
        /// A reschedule made after its run returned runs the next run at once, nested inside
        /// whatever the thread's trampoline is running.
        case lateRescheduleRunsNested = "trampoline-late-reschedule-runs-nested"

        /// Whether the fault is in its recursion, which ``FaultyTrampolineRecursion`` carries.
        var inRecursion: Bool {
            [.queuedRecursionIgnoresDispose, .rerunJumpsQueue, .lateRescheduleLostWhileBusy, .lateRescheduleRunsNested]
                .contains(self)
        }
    }

    struct Entry {
        let action: SchedulerAction
        let disposable: BooleanDisposable
    }

    let fault: Fault
    var name: String { fault.rawValue }
    var capabilities: SchedulerCapabilities { [.trampoline, .tracksCurrent] }
    private let sharedBusy = Atomic<Bool>(false)

    init(_ fault: Fault) { self.fault = fault }

    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let thread = PerThread<(busy: Bool, queue: [Entry])>.local(for: self, (false, []))
        if fault == .eager {
            CurrentScheduler.run(as: self, action)
            return BooleanDisposable()
        }
        let busy =
            fault == .sharedBusyFlag ? sharedBusy.exchange(true, ordering: .acquiringAndReleasing) : thread.state.busy
        guard !busy else {
            let entry = Entry(action: action, disposable: BooleanDisposable())
            thread.state.queue.append(entry)
            return fault == .ignoresDisposal ? BooleanDisposable() : entry.disposable
        }
        thread.state.busy = true
        var drained = 0
        func drain() {
            guard fault != .disposalCheckedPerBatch else {
                while !thread.state.queue.isEmpty {
                    let batch = thread.state.queue.filter { !$0.disposable.isDisposed }
                    thread.state.queue.removeAll()
                    drained += batch.count
                    for entry in batch { entry.action() }
                }
                return
            }
            while let next = pop(thread) {
                drained += 1
                if !next.disposable.isDisposed { next.action() }
            }
        }
        CurrentScheduler.run(as: self) {
            action()
            if fault == .recursiveDrain {
                _ = drainRecursively(thread)
            } else if fault != .nestedNotCurrent {
                drain()
            }
        }
        if fault == .nestedNotCurrent { drain() }
        if fault != .staysBusy || drained == 0 { thread.state.busy = false }
        if fault == .sharedBusyFlag { sharedBusy.store(false, ordering: .releasing) }
        return nil
    }

    @discardableResult
    func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        if fault.inRecursion { return FaultyTrampolineRecursion(on: self, block).start() }
        guard fault == .inlineRecursion else { return RecursiveScheduling.start(on: self, block) }
        let handle = BooleanDisposable()
        CurrentScheduler.run(as: self) { block { [self] in _ = schedule { block {} } } }
        return handle
    }

    /// Whether this trampoline is draining on the calling thread.
    var isBusyOnThisThread: Bool { PerThread<(busy: Bool, queue: [Entry])>.local(for: self, (false, [])).state.busy }

    /// Puts `action` at the front of the calling thread's queue.
    func enqueueFirst(_ action: @escaping SchedulerAction) {
        PerThread<(busy: Bool, queue: [Entry])>.local(for: self, (false, [])).state.queue.insert(
            Entry(action: action, disposable: BooleanDisposable()), at: 0)
    }

    private func pop(_ thread: PerThread<(busy: Bool, queue: [Entry])>) -> Entry? {
        guard !thread.state.queue.isEmpty else { return nil }
        return fault == .lifo ? thread.state.queue.removeLast() : thread.state.queue.removeFirst()
    }

    /// Returns how many ran; the addition after the call keeps it from becoming a loop.
    private func drainRecursively(_ thread: PerThread<(busy: Bool, queue: [Entry])>) -> Int {
        guard let next = pop(thread) else { return 0 }
        if !next.disposable.isDisposed { next.action() }
        return 1 + drainRecursively(thread)
    }
}

/// A trampoline whose queue is shared by every thread instead of being per thread.
final class SharedTrampolineMutant: Scheduler {
    private struct State {
        var running = false
        var queue: [SchedulerAction] = []
    }

    let name: String
    init(_ name: String) { self.name = name }
    var capabilities: SchedulerCapabilities { [.trampoline, .tracksCurrent] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }
    private let state = Lock(State())

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let enqueued = state.withLock { state in
            guard state.running else {
                state.running = true
                return false
            }
            state.queue.append(action)
            return true
        }
        guard !enqueued else { return BooleanDisposable() }
        CurrentScheduler.run(as: self) {
            action()
            while let next = state.withLock({ state -> SchedulerAction? in
                guard !state.queue.isEmpty else {
                    state.running = false
                    return nil
                }
                return state.queue.removeFirst()
            }) {
                next()
            }
        }
        return nil
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let trampoline: [Mutant] = [
        faulty(FaultyTrampolineMutant.Fault.eager, "runs nested actions re-entrantly", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.lifo, "drains its queue last-in first-out", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.inlineRecursion, "a recursion's first run jumps the queue", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(
            FaultyTrampolineMutant.Fault.nestedNotCurrent,
            "runs the actions an action queued outside its current scope",
            .cur1
        ) { FaultyTrampolineMutant($0) },
        faulty(
            FaultyTrampolineMutant.Fault.disposalCheckedPerBatch,
            "takes its queue as one batch, skipping only what was disposed when it took it", .lin6
        ) { FaultyTrampolineMutant($0) },
        faulty(
            FaultyTrampolineMutant.Fault.queuedRecursionIgnoresDispose,
            "a recursion's queued run starts after the recursion was disposed", .lin6
        ) { FaultyTrampolineMutant($0) },
        faulty(
            FaultyTrampolineMutant.Fault.rerunJumpsQueue, "a run's reschedules go to the front of the queue", .lin6
        ) { FaultyTrampolineMutant($0) },
        faulty(
            FaultyTrampolineMutant.Fault.lateRescheduleLostWhileBusy,
            "drops a reschedule made after its run returned while the thread is busy", .lin6
        ) { FaultyTrampolineMutant($0) },
        faulty(
            FaultyTrampolineMutant.Fault.lateRescheduleRunsNested,
            "runs a reschedule made after its run returned at once, inside what the thread is running", .lin6
        ) { FaultyTrampolineMutant($0) },
        faulty(FaultyTrampolineMutant.Fault.ignoresDisposal, "nested handles are not checked", .trm2) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.staysBusy, "stays busy after a drain that ran something", .trm3) {
            FaultyTrampolineMutant($0)
        },
        mutant("shared-trampoline", "one queue for all threads", .trm4) { SharedTrampolineMutant($0) },
        faulty(FaultyTrampolineMutant.Fault.recursiveDrain, "drains by recursion", .trm5) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.sharedBusyFlag, "per-thread queues, one shared busy flag", .trm6) {
            FaultyTrampolineMutant($0)
        },
    ]
}
