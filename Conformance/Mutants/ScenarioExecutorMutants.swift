import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A small serial executor, correct but for one fault: each where an enqueue meets the
/// drain deciding what to do next, or a job enqueued from inside a job meets one from
/// outside, in a window of a microsecond, for LIN-4's generated scenarios to find unaided.
/// EXE-1 … EXE-4 enqueue in bulk and rarely land in these windows.
final class RacyExecutor: SerialExecutor {
    enum Fault: String, Sendable, CaseIterable {
        case none = "racy-executor"
        /// The drain finds its queue empty in one critical section and marks itself idle in
        /// another: a job enqueued in between sees a drain under way, and nobody runs it.
        case idleInTwoSteps = "executor-goes-idle-in-two-steps"
        /// An enqueue reads the idle flag before taking the lock: two enqueues that both read
        /// it idle start two drains, which run jobs side by side.
        case enqueueReadsIdleEarly = "executor-enqueue-reads-idle-early"
        /// The drain marks itself idle before its last look at the queue and takes up work
        /// it finds there: an enqueue in between starts a second drain beside it.
        case drainRelooksWhenIdle = "executor-drain-relooks-when-idle"
        /// Jobs enqueued from inside a job wait aside until that job returns: one enqueued
        /// from outside meanwhile runs first, though it was enqueued later.
        case nestedHeldUntilReturn = "executor-nested-held-until-return"

        /// The fault in a few words, for the mutant list.
        var summary: String {
            switch self {
            case .none: "none"
            case .idleInTwoSteps: "the drain finds its queue empty and goes idle in two critical sections"
            case .enqueueReadsIdleEarly: "an enqueue reads the idle flag before taking the lock"
            case .drainRelooksWhenIdle: "the drain goes idle, then takes up work it finds in a last look"
            case .nestedHeldUntilReturn: "jobs enqueued from inside a job wait aside until it returns"
            }
        }
    }

    private struct State {
        var pending: [UnownedJob] = []
        var draining = false
        /// Jobs enqueued from inside the running job (the nestedHeldUntilReturn fault).
        var aside: [UnownedJob] = []
    }

    let fault: Fault
    private let state = Lock(State())
    /// The idle flag mirrored for the enqueueReadsIdleEarly fault, which reads it outside the lock.
    private let drainingHint = Atomic<Bool>(false)
    private let worker = DispatchQueue(label: "racy executor", attributes: .concurrent)
    /// The thread running one of this executor's jobs, or 0.
    private let runningOn = Atomic<UInt>(0)

    init(_ fault: Fault) { self.fault = fault }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if fault == .nestedHeldUntilReturn, runningOn.load(ordering: .acquiring) == ThreadProbe.id {
            return state.withLock { $0.aside.append(job) }
        }
        var readIdle = false
        if fault == .enqueueReadsIdleEarly {
            readIdle = !drainingHint.load(ordering: .acquiring)
            spin(.microseconds(1))
        }
        let start = state.withLock { state -> Bool in
            state.pending.append(job)
            if fault == .enqueueReadsIdleEarly {
                state.draining = true
                drainingHint.store(true, ordering: .releasing)
                return readIdle
            }
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        // A concurrent queue: a second drain started by a fault really runs beside the first.
        if start { worker.async { self.drain() } }
    }

    private func drain() {
        while let job = next() {
            runningOn.store(ThreadProbe.id, ordering: .releasing)
            job.runSynchronously(on: asUnownedSerialExecutor())
            runningOn.store(0, ordering: .releasing)
            if fault == .nestedHeldUntilReturn {
                state.withLock { state in
                    state.pending.append(contentsOf: state.aside)
                    state.aside.removeAll()
                }
            }
        }
    }

    private func next() -> UnownedJob? {
        switch fault {
        case .idleInTwoSteps:
            if let job = takeFirst() { return job }
            spin(.microseconds(1))
            state.withLock { $0.draining = false }
            return nil
        case .drainRelooksWhenIdle:
            if let job = takeFirst() { return job }
            state.withLock { $0.draining = false }
            spin(.microseconds(1))
            return takeFirst()
        case .none, .enqueueReadsIdleEarly, .nestedHeldUntilReturn:
            return state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    drainingHint.store(false, ordering: .releasing)
                    return nil
                }
                return state.pending.removeFirst()
            }
        }
    }

    /// The oldest pending job, if any, taken in one critical section.
    private func takeFirst() -> UnownedJob? {
        state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(complexEquality: self) }

    func isSameExclusiveExecutionContext(other: RacyExecutor) -> Bool { other === self }

    func isIsolatingCurrentContext() -> Bool? { runningOn.load(ordering: .acquiring) == ThreadProbe.id }

    func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true, "not on the racy executor")
    }

    /// The executor as the suite sees it.
    var underTest: ExecutorUnderTest { ExecutorUnderTest(serial: self, checksIsolation: true) }
}
