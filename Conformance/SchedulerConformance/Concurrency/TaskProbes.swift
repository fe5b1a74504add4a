import Dispatch
import SchedulerProbes
import Schedulers
import Synchronization

/// A task executor whose jobs run only when a thread asks, on that thread: how a rule puts
/// a task's next step (a sleep starting, say) on a thread of its choosing at a moment of its
/// choosing.
final class HandExecutor: TaskExecutor {
    private let jobs = Lock<[UnownedJob]>([])

    /// Keeps `job` until a thread runs it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs, on the calling thread, the jobs enqueued so far and those they enqueue, in order;
    /// returns how many ran.
    @discardableResult
    func runAll() -> Int {
        var count = 0
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
            count += 1
        }
        return count
    }
}

/// An actor whose executor is a serial executor under test: calling it is how a rule makes
/// the runtime enqueue jobs there.
actor ExecutorBoundActor {
    private let executor: any SerialExecutor
    init(_ executor: any SerialExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs `body` as one job of the executor.
    func run(_ body: @Sendable () -> Void) { body() }
}

/// A task a rule started, and how it ended.
public final class ProbeTask: Sendable {
    /// How the task's body ended.
    public enum Outcome: Sendable, Equatable {
        /// It returned, with the reading its body took as it ended (a clock's time, say).
        case returned(at: Duration)
        /// It threw `CancellationError`.
        case cancelled
        /// It threw something else, described.
        case threw(String)
    }

    private let handle = Lock<Task<Void, Never>?>(nil)
    private let result = Lock<Outcome?>(nil)
    /// Fires when the body has ended.
    public let finished = Signal()
    /// The suite's probe executor the task runs on, when it does (not a clock's own).
    private let probe = Lock<ProbeExecutor?>(nil)

    /// The thread running a job of the task's probe executor now: the task's own, stuck in a
    /// call, where it has not finished (the probe is serial). Nil on an executor of the
    /// clock's, or while nothing runs.
    var runningThread: Int32? { probe.withLock { $0 }?.runningThread }

    init() {}

    func start(on executor: any TaskExecutor, _ body: @escaping @Sendable () async throws -> Duration) {
        probe.withLock { $0 = executor as? ProbeExecutor ?? (executor as? ProbeLane)?.underlying }
        let task = Task(executorPreference: executor) {
            let outcome: Outcome
            do {
                outcome = .returned(at: try await body())
            } catch is CancellationError {
                outcome = .cancelled
            } catch {
                outcome = .threw(String(describing: error))
            }
            self.result.withLock { $0 = outcome }
            self.finished.fire()
        }
        handle.withLock { $0 = task }
    }

    /// Cancels the task, and returns once its cancellation handler (a clock's, say) has run,
    /// when the task was inside one.
    public func cancel() {
        // Under the lock, so two threads cancelling at once take turns: the runtime lets the
        // second return as soon as the task is marked cancelled, while the first may still be
        // about to run the handler, and a history would then show a cancel that returned
        // before it reached the clock, which no order of the calls explains (LIN-3 under TSan).
        handle.withLock { $0?.cancel() }
    }

    /// How it ended; nil while it has not.
    public var outcome: Outcome? { result.withLock { $0 } }
}

extension RuleContext {
    /// Runs `body` in a task on a probe executor and returns what it returns, waiting up to
    /// `bound` (`Timing.mustHappen` by default); a thrown error or a missed bound fails
    /// the rule, naming `what`.
    public func perform<T: Sendable>(
        _ what: @autoclosure () -> String, within bound: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> T
    ) throws(RuleFailure) -> T {
        let result = Lock<Result<T, any Error>?>(nil)
        let done = Signal()
        let executor = ProbeExecutor()
        let task = Task(executorPreference: executor) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.fire()
        }
        let bound = bound ?? timing.mustHappen
        guard done.wait(bound) else {
            // Still on a thread: stuck in a call. Suspended: it waits for what never came.
            if let thread = executor.runningThread {
                throw hang("\(what()) did not finish within \(bound)", stuck: [("its task", thread)])
            }
            task.cancel()
            throw RuleFailure("\(what()) did not finish within \(bound)")
        }
        switch result.withLock({ $0 })! {
        case .success(let value): return value
        case .failure(let error): throw RuleFailure("\(what()) threw \(error)")
        }
    }
}
