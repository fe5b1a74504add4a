import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Claims to be synchronous but defers to a queue.
final class DeferringImmediateMutant: MutantBase, @unchecked Sendable {
    init() { super.init("deferring-immediate", claims: [.synchronous]) }
}

/// Per-thread state for the synchronous mutants, kept in the thread's dictionary under a
/// key of the owning scheduler.
///
/// @unchecked Sendable: only ever touched by the thread whose dictionary holds it.
final class PerThread<State>: @unchecked Sendable {
    var state: State
    init(_ state: State) { self.state = state }

    /// The calling thread's instance for `owner`, made with `initial` on first use.
    static func local(for owner: AnyObject, _ initial: @autoclosure () -> State) -> PerThread<State> {
        let key = "mutant.\(ObjectIdentifier(owner).hashValue)"
        if let existing = Thread.current.threadDictionary[key] as? PerThread<State> { return existing }
        let created = PerThread(initial())
        Thread.current.threadDictionary[key] = created
        return created
    }
}

/// An immediate scheduler with one fault.
final class FaultyImmediateMutant: Scheduler {
    enum Fault: String, Sendable {
        /// Loses one action in 400.
        case dropsRarely = "immediate-drops-rarely"
        /// Defers nested calls until the outer action returns (a trampoline, claiming synchronous).
        case defersNested = "immediate-defers-nested"
        /// Sleeps for the delay rounded down to 10 ms, so it wakes up to 10 ms early.
        case wakesEarly = "immediate-wakes-early"
        /// Sleeps for the delay less a millisecond: early by less than a loaded machine's
        /// wake-up can be late.
        case wakesAMillisecondEarly = "immediate-wakes-a-millisecond-early"
        /// Accepts a repeating request, runs it once and returns a handle.
        case acceptsRepeating = "immediate-accepts-repeating"
        /// A correct immediate scheduler that forgot to claim `synchronous`, claiming
        /// cancellation instead (its handles come back after the action ran).
        case synchronousUnclaimed = "immediate-synchronous-unclaimed"
        /// Unrolls recursion into a loop over a count of pending runs, but decides to end the
        /// loop in one critical section and clears its "looping" mark in the next: a
        /// reschedule from another thread in between is counted for a loop that is ending.
        case loopEndsInTwoSteps = "immediate-loop-ends-in-two-steps"
    }

    let fault: Fault
    var name: String { fault.rawValue }
    var capabilities: SchedulerCapabilities {
        fault == .synchronousUnclaimed ? [.cancellation, .timers] : [.synchronous, .timers]
    }
    private let count = Atomic<Int>(0)

    init(_ fault: Fault) { self.fault = fault }

    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        switch fault {
        case .dropsRarely:
            if count.wrappingAdd(1, ordering: .relaxed).newValue % 400 == 0 { return nil }
        case .defersNested:
            let thread = PerThread<(busy: Bool, queue: [SchedulerAction])>.local(for: self, (false, []))
            guard !thread.state.busy else {
                thread.state.queue.append(action)
                return nil
            }
            thread.state.busy = true
            action()
            while !thread.state.queue.isEmpty { thread.state.queue.removeFirst()() }
            thread.state.busy = false
            return nil
        case .wakesEarly, .wakesAMillisecondEarly, .acceptsRepeating, .loopEndsInTwoSteps:
            break
        case .synchronousUnclaimed:
            action()
            return BooleanDisposable()
        }
        action()
        return nil
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        var delay = now.duration(to: deadline)
        if fault == .wakesEarly {
            let slot = Int64(10_000_000)
            delay = .nanoseconds((try? delay.checkedNanoseconds()).map { $0 / slot * slot } ?? 0)
        }
        if fault == .wakesAMillisecondEarly { delay -= .milliseconds(1) }
        if delay > .zero {
            Thread.sleep(
                forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18)
        }
        if fault != .wakesEarly && fault != .wakesAMillisecondEarly {
            while now < deadline { Thread.sleep(forTimeInterval: 0.0001) }
        }
        return schedule(action)
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        guard fault == .acceptsRepeating else { throw .repeatingUnsupported(scheduler: name) }
        action()
        return BooleanDisposable()
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        guard fault == .loopEndsInTwoSteps else { return RecursiveScheduling.start(on: self, block) }
        let disposable = BooleanDisposable()
        let state = Lock<(looping: Bool, pending: Int)>((false, 0))
        @Sendable func reschedule() {
            let start = state.withLock { state in
                if state.looping {
                    state.pending += 1
                    return false
                }
                state.looping = true
                return true
            }
            guard start else { return }
            while !disposable.isDisposed {
                block(reschedule)
                let again = state.withLock { state in
                    guard state.pending > 0 else { return false }
                    state.pending -= 1
                    return true
                }
                if !again {
                    state.withLock { $0.looping = false }
                    return
                }
            }
        }
        reschedule()
        return disposable
    }
}

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
    }

    private struct Entry {
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
        CurrentScheduler.run(as: self) {
            action()
            if fault == .recursiveDrain {
                _ = drainRecursively(thread)
            } else {
                while let next = pop(thread) {
                    drained += 1
                    if !next.disposable.isDisposed { next.action() }
                }
            }
        }
        if fault != .staysBusy || drained == 0 { thread.state.busy = false }
        if fault == .sharedBusyFlag { sharedBusy.store(false, ordering: .releasing) }
        return nil
    }

    @discardableResult
    func scheduleRecursive(
        _ block: @escaping @Sendable (_ reschedule: @escaping @Sendable () -> Void) -> Void
    ) -> (any Disposable)? {
        guard fault == .inlineRecursion else { return RecursiveScheduling.start(on: self, block) }
        let handle = BooleanDisposable()
        CurrentScheduler.run(as: self) { block { [self] in _ = schedule { block {} } } }
        return handle
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

    let name = "shared-trampoline"
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

/// An immediate scheduler that keeps a per-thread nesting depth under a pthread key made
/// without a destructor: every thread that ever used it leaves its depth object behind.
final class ThreadStateNeverFreedMutant: Scheduler {
    private final class Depth {
        var value = 0
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "out of thread-specific keys")
        return key
    }()

    let name = "thread-state-never-freed"
    var capabilities: SchedulerCapabilities { [.synchronous] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let depth: Depth
        if let raw = pthread_getspecific(Self.key) {
            depth = Unmanaged<Depth>.fromOpaque(raw).takeUnretainedValue()
        } else {
            depth = Depth()
            pthread_setspecific(Self.key, Unmanaged.passRetained(depth).toOpaque())
        }
        depth.value += 1
        action()
        depth.value -= 1
        return nil
    }
}
