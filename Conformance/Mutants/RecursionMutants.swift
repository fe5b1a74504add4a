import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

final class StackRecursionMutant: Scheduler {
    let name: String
    init(_ name: String) { self.name = name }
    var capabilities: SchedulerCapabilities { [.synchronous] }
    var now: SchedulerTime { ImmediateScheduler.shared.now }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        action()
        return nil
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        @Sendable func run() {
            guard !disposable.isDisposed else { return }
            block { run() }
        }
        run()
        return disposable
    }
}

/// A queue scheduler whose recursion is ReactiveCocoa's algorithm with one fault.
final class FaultyRecursionMutant: MutantBase, @unchecked Sendable {
    enum Fault: String, Sendable {
        /// Two reschedules during the block give one run (a Bool, not a counter).
        case lossyReschedule = "lossy-reschedule"
        /// The handle is not connected: disposal stops nothing.
        case ignoresDisposal = "recursion-ignores-disposal"
        /// A reschedule during the block runs the block at once, inside the running one.
        case reentrant = "recursion-reentrant"
        /// A reschedule after the block returned bumps a counter nobody reads.
        case laterRescheduleLost = "recursion-later-reschedule-lost"
        /// Later reschedules set a pending flag: a second one before the run is merged.
        case mergesLaterReschedules = "recursion-merges-later-reschedules"
        /// Disposal is checked when rescheduling, not when a queued run starts.
        case checksDisposalOnlyOnReschedule = "recursion-checks-disposal-on-reschedule"
        /// The first run is queued twice.
        case doubleFirstRun = "recursion-double-first-run"
        /// On a concurrent queue, only the first reschedule during the block is counted; a
        /// second one schedules at once (a counter whose "returned" bit is one of its counts),
        /// so that run starts on another thread while the block still runs.
        case concurrentEarlyRun = "recursion-concurrent-early-run"
    }

    let fault: Fault

    init(_ fault: Fault) {
        self.fault = fault
        if fault == .concurrentEarlyRun {
            super.init(
                fault.rawValue, claims: [.asynchronous, .concurrent, .cancellation, .tracksCurrent],
                queue: DispatchQueue(label: fault.rawValue, attributes: .concurrent))
        } else {
            super.init(fault.rawValue)
        }
    }

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let fault = self.fault
        let pendingLater = Atomic<Bool>(false)
        @Sendable func enqueue() {
            if fault == .checksDisposalOnlyOnReschedule, disposable.isDisposed { return }
            _ = schedule { run() }
        }
        @Sendable func run() {
            if fault != .checksDisposalOnlyOnReschedule && fault != .ignoresDisposal, disposable.isDisposed { return }
            pendingLater.store(false, ordering: .relaxed)
            let state = Lock<(inBlock: Bool, counted: Int)>((true, 0))
            block {
                let inBlock = state.withLock { state in
                    if state.inBlock { state.counted += 1 }
                    return state.inBlock
                }
                if inBlock {
                    if fault == .reentrant { run() }
                    let early =
                        fault == .concurrentEarlyRun
                        && state.withLock { state in
                            guard state.counted > 1 else { return false }
                            state.counted -= 1
                            return true
                        }
                    if early { enqueue() }
                    return
                }
                switch fault {
                case .laterRescheduleLost: return
                case .mergesLaterReschedules: if pendingLater.exchange(true, ordering: .relaxed) { return }
                default: break
                }
                enqueue()
            }
            let counted = state.withLock { state in
                state.inBlock = false
                return state.counted
            }
            switch fault {
            case .reentrant: return
            case .lossyReschedule: if counted > 0 { enqueue() }
            default: for _ in 0..<counted { enqueue() }
            }
        }
        enqueue()
        if fault == .doubleFirstRun { enqueue() }
        return fault == .ignoresDisposal ? BooleanDisposable() : disposable
    }
}

/// Counts the reschedules made during the block with a single compare-and-swap, and drops
/// a bump that lost to another thread's: one caller never loses a reschedule, two callers at
/// once sometimes do.
final class RescheduleCasGivesUpMutant: MutantBase, @unchecked Sendable {
    private final class Run: Sendable {
        let deferred = Atomic<Int>(0)
        let returned = Atomic<Bool>(false)
    }

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        @Sendable func start() {
            _ = schedule {
                guard !disposable.isDisposed else { return }
                let run = Run()
                block {
                    if run.returned.load(ordering: .acquiring) { return start() }
                    let current = run.deferred.load(ordering: .relaxed)
                    _ = run.deferred.compareExchange(
                        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
                }
                run.returned.store(true, ordering: .releasing)
                for _ in 0..<run.deferred.load(ordering: .acquiring) { start() }
            }
        }
        start()
        return disposable
    }
}

/// Recursion on its queue, but a reschedule made after the run returned runs the next run
/// at once, inside the call, as a shortcut (the run is due anyway).
final class LateRescheduleInlineMutant: MutantBase, @unchecked Sendable {
    private final class Recursion: Sendable {
        let scheduler: LateRescheduleInlineMutant
        let block: @Sendable (@escaping @Sendable () -> Void) -> Void
        let disposable = BooleanDisposable()
        let state = Lock<(running: Bool, deferred: Int)>((false, 0))

        init(
            _ scheduler: LateRescheduleInlineMutant,
            _ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
        ) {
            self.scheduler = scheduler
            self.block = block
        }

        func run() {
            guard !disposable.isDisposed else { return }
            state.withLock { $0 = (true, 0) }
            CurrentScheduler.run(as: scheduler) { block { self.reschedule() } }
            let deferred = state.withLock { state in
                defer { state = (false, 0) }
                return state.deferred
            }
            for _ in 0..<deferred { scheduler.schedule { self.run() } }
        }

        func reschedule() {
            let counted = state.withLock { state in
                guard state.running else { return false }
                state.deferred += 1
                return true
            }
            if !counted { run() }
        }
    }

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let recursion = Recursion(self, block)
        schedule { recursion.run() }
        return recursion.disposable
    }
}

/// Posts a recursion's first run straight to its queue, unchecked (nothing can have disposed
/// it yet, it reasons); the reruns check the handle.
final class RecursionFirstRunIgnoresDisposeMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let state = Lock<(running: Bool, again: Int)>((false, 0))
        @Sendable func rerun() {
            schedule {
                if !disposable.isDisposed { run() }
            }
        }
        @Sendable func reschedule() {
            let late = state.withLock { state in
                guard !state.running else {
                    state.again += 1
                    return false
                }
                return true
            }
            if late { rerun() }
        }
        @Sendable func run() {
            state.withLock { $0 = (true, 0) }
            CurrentScheduler.run(as: self) { block(reschedule) }
            let again = state.withLock { state in
                defer { state = (false, 0) }
                return state.again
            }
            for _ in 0..<again { rerun() }
        }
        queue.async { run() }
        return disposable
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let recursion: [Mutant] = [
        mutant("recursion-first-run-ignores-dispose", "a recursion's first run does not check its handle", .can1) {
            RecursionFirstRunIgnoresDisposeMutant($0)
        },
        mutant("late-reschedule-inline", "a reschedule made after the run returned runs the next run inside it", .ord5)
        {
            LateRescheduleInlineMutant($0)
        },
        mutant(
            "reschedule-cas-gives-up", "a reschedule that loses a compare-and-swap to another thread is dropped", .rec4
        ) {
            RescheduleCasGivesUpMutant($0)
        },
        mutant("stack-recursion", "recursion recurses on the stack", .rec7) { StackRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.doubleFirstRun, "queues the first run twice", .rec1) {
            FaultyRecursionMutant($0)
        },
        faulty(FaultyRecursionMutant.Fault.reentrant, "a reschedule during the block runs it inside itself", .rec2) {
            FaultyRecursionMutant($0)
        },
        faulty(
            FaultyRecursionMutant.Fault.concurrentEarlyRun,
            "on a concurrent queue, a second reschedule during the block starts a run at once", .rec2
        ) { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.lossyReschedule, "two reschedules give one run", .rec3) {
            FaultyRecursionMutant($0)
        },
        faulty(FaultyRecursionMutant.Fault.laterRescheduleLost, "a reschedule after the block returned is lost", .rec4)
        { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.mergesLaterReschedules, "two later reschedules give one run", .rec4) {
            FaultyRecursionMutant($0)
        },
        faulty(
            FaultyRecursionMutant.Fault.checksDisposalOnlyOnReschedule,
            "a run already queued still runs after dispose()", .rec5
        ) { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.ignoresDisposal, "disposing a recursion does not stop it", .rec6) {
            FaultyRecursionMutant($0)
        },
    ]
}
