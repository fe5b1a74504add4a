import Dispatch
import Foundation
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Claims to be synchronous but defers to a queue.
final class DeferringImmediateMutant: MutantBase, @unchecked Sendable {
    init(_ name: String) { super.init(name, claims: [.synchronous]) }
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
        /// Runs each action as the current scheduler, hiding the caller's, though it claims
        /// not to track it.
        case runsAsCurrent = "immediate-runs-as-current"
        /// Runs each run of a recursion as the current scheduler (its plain actions not).
        case recursionRunsAsCurrent = "immediate-recursion-runs-as-current"
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
        case .wakesEarly, .wakesAMillisecondEarly, .acceptsRepeating, .loopEndsInTwoSteps, .recursionRunsAsCurrent:
            break
        case .synchronousUnclaimed:
            action()
            return BooleanDisposable()
        case .runsAsCurrent:
            CurrentScheduler.run(as: self, action)
            return nil
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
        if fault == .recursionRunsAsCurrent {
            return RecursiveScheduling.start(on: self) { reschedule in
                CurrentScheduler.run(as: self) { block(reschedule) }
            }
        }
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

    let name: String
    init(_ name: String) { self.name = name }
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

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let immediate: [Mutant] = [
        mutant("deferring-immediate", "claims synchronous, runs later", .imm1) { DeferringImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.dropsRarely, "loses one action in 400", .imm2) { FaultyImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.defersNested, "defers nested actions until the outer one returns", .imm3) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.wakesEarly, "sleeps for the delay rounded down to 10 ms", .imm4) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.wakesAMillisecondEarly, "sleeps for the delay less a millisecond", .imm4
        ) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.acceptsRepeating, "accepts repeating and runs it once", .imm5) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.synchronousUnclaimed,
            "runs synchronously but claims cancellation instead of synchronous", .can5
        ) { FaultyImmediateMutant($0) },
        faulty(
            FaultyImmediateMutant.Fault.loopEndsInTwoSteps,
            "its recursion loop ends in two steps: a reschedule from another thread between them is lost", .rec4
        ) { FaultyImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.runsAsCurrent, "runs each action as the current scheduler", .lin6) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.recursionRunsAsCurrent, "runs each run of a recursion as the current scheduler",
            .lin6
        ) { FaultyImmediateMutant($0) },
        mutant("thread-state-never-freed", "keeps per-thread state under a pthread key without a destructor", .thr6) {
            ThreadStateNeverFreedMutant($0)
        },
    ]
}
