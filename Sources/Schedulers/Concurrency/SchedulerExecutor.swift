import Dispatch

/// A Swift concurrency executor whose jobs run as actions of a serial scheduler, so actors
/// (through `unownedExecutor`) and tasks (through `Task(executorPreference:)`) run where
/// the scheduler runs its work.
///
/// Jobs run one at a time, in the order they were enqueued, each with the scheduler as
/// ``CurrentScheduler/value``. On a ``TestScheduler`` they run only while it is advanced,
/// on the thread that advances it: with a ``VirtualClock`` for `sleep`, actors and tasks
/// become as deterministic as the scheduler, and "run until quiet" is `advance(by: .zero)`.
///
/// Executors on the same scheduler are one exclusive execution context: each says so in
/// `isSameExclusiveExecutionContext(other:)`, and code running as one of the scheduler's
/// actions (not only its jobs) passes `checkIsolated()`. Isolation is read from
/// ``CurrentScheduler``, so inside an immediate or trampoline action nested in one of the
/// scheduler's actions it is not recognised.
///
/// Like every custom executor, it must outlive the actors and tasks that use it: an
/// `UnownedSerialExecutor` does not retain it. Store it (in the actor, say); do not write
/// `scheduler.executor.asUnownedSerialExecutor()` in `unownedExecutor`, which makes a new
/// executor each time.
public final class SchedulerExecutor: SerialExecutor, TaskExecutor, CustomStringConvertible {
    /// How a job reaches the scheduler: as it is, where the scheduler queues jobs beside its
    /// actions (nothing can cancel a job, so it needs neither the handle nor the closure an
    /// action costs), else wrapped in an action.
    private enum Route {
        /// In line with a Dispatch-backed serial scheduler's actions, in the batch they would join.
        case drain(SerialDrain)
        case virtualTime(TestScheduler)
        case action
    }

    /// The scheduler the jobs run on.
    public let scheduler: any Scheduler
    private let route: Route

    /// An executor on `scheduler`.
    /// - Throws: ``SchedulerError/notSerial(scheduler:)`` unless the scheduler claims
    ///   ``SchedulerCapabilities/serial`` and is neither synchronous nor a trampoline: an
    ///   executor's jobs must never overlap, nor run inside the call that enqueues them.
    public init(_ scheduler: any Scheduler) throws(SchedulerError) {
        let capabilities = scheduler.capabilities
        guard capabilities.contains(.serial), capabilities.isDisjoint(with: [.synchronous, .trampoline]) else {
            throw .notSerial(scheduler: scheduler.name)
        }
        self.scheduler = scheduler
        if let drain = (scheduler as? any DispatchBackedScheduler)?.backend.drain {
            route = .drain(drain)
        } else if let virtual = scheduler as? TestScheduler {
            route = .virtualTime(virtual)
        } else {
            route = .action
        }
    }

    /// Runs `job` where an action scheduled now would run, isolated to this executor (an
    /// actor's job); it cannot be cancelled.
    public func enqueue(_ job: consuming ExecutorJob) { submit(UnownedJob(job), isolated: true) }

    /// Runs `job`, from a task that prefers this executor, where an action scheduled now would
    /// run, isolated to no executor; it cannot be cancelled.
    // The task runs nonisolated code here: isolated to this executor, each of its calls to a
    // nonisolated async function would have to give the executor up, which only a default
    // actor can do in place, and hop back through the scheduler's queue (SE-0417's split of
    // the two roles).
    @_implements(TaskExecutor,enqueue(_:))
    public func enqueueNonisolated(_ job: consuming ExecutorJob) { submit(UnownedJob(job), isolated: false) }

    private func submit(_ job: UnownedJob, isolated: Bool) {
        switch route {
        case .drain(let drain): drain.enqueue(.job(job, Unmanaged.passUnretained(self), isolated: isolated))
        case .virtualTime(let scheduler): scheduler.enqueue(job, from: self, isolated: isolated)
        // The scheduler sets itself as the current scheduler around its actions.
        case .action: scheduler.schedule { self.run(job, isolated: isolated) }
        }
    }

    /// Runs `job` on this thread, which the caller has made the scheduler's: isolated to this
    /// executor if it came as an actor's job, else as a task's on its preferred executor.
    @inline(__always)
    func run(_ job: UnownedJob, isolated: Bool) {
        if isolated {
            // Both roles at once: an actor's job is isolated to this executor, and a task that
            // prefers it keeps the preference for what it starts (SE-0417).
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        } else {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// This executor, compared by ``isSameExclusiveExecutionContext(other:)``.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        // Complex equality: executors on the same scheduler are one context.
        UnownedSerialExecutor(complexEquality: self)
    }

    /// Whether `other` runs its jobs on the same scheduler.
    public func isSameExclusiveExecutionContext(other: SchedulerExecutor) -> Bool {
        scheduler === other.scheduler
    }

    /// Whether this thread is running one of the scheduler's actions or jobs.
    public func isIsolatingCurrentContext() -> Bool? {
        CurrentScheduler.value === scheduler
    }

    /// Stops the program unless this thread is running one of the scheduler's actions or jobs.
    public func checkIsolated() {
        precondition(
            CurrentScheduler.value === scheduler,
            "not isolated to \(scheduler.name): the current scheduler is \(CurrentScheduler.value?.name ?? "none")")
    }

    /// `SchedulerExecutor(` and the scheduler's name.
    public var description: String { "SchedulerExecutor(\(scheduler.name))" }
}

extension QueueScheduler {
    /// A new executor whose jobs run on this scheduler's queue, as its actions do (every
    /// one is the same execution context); store the one an actor or task uses.
    public var executor: SchedulerExecutor {
        // A queue scheduler is serial and asynchronous, so this cannot throw.
        try! SchedulerExecutor(self)
    }
}

extension TestScheduler {
    /// A new executor whose jobs run only while this scheduler is advanced, in virtual
    /// time (every one is the same execution context); store the one tasks use.
    public var executor: SchedulerExecutor {
        // A test scheduler is serial and asynchronous, so this cannot throw.
        try! SchedulerExecutor(self)
    }

    /// A clock whose time is this scheduler's.
    public var clock: VirtualClock { VirtualClock(self) }
}
