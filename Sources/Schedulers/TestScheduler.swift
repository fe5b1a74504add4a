import Synchronization

/// A virtual-time scheduler for unit tests (ReactiveCocoa's `RACTestScheduler`,
/// ReactiveSwift's `TestScheduler`).
///
/// Nothing runs until the scheduler is stepped or advanced; then actions run on the
/// driving thread, as the current scheduler, ordered by (time, order of scheduling) so
/// equal times are FIFO. Scheduling and disposing are safe from any thread, and so is
/// driving: a `step()` or `advance(to:)` from another thread waits for the drive under way
/// to end, so two drives never mix their work, while a drive from inside an action is part
/// of the drive that runs it. No user code runs while the queue's lock is held.
/// (`advance(by:)` and `stepAll()` are one drive each; `step(_:)` is one per step.)
///
/// ```swift
/// let scheduler = TestScheduler()
/// try scheduler.schedule(after: .seconds(2)) { print("second") }
/// scheduler.schedule { print("first") }
/// try scheduler.advance(by: .seconds(2)) // prints "first", then "second"
/// ```
public final class TestScheduler: VirtualTimeScheduler {
    /// A repeating action's interval lives in the action, and a job is queued as it is: it
    /// cannot be cancelled, so it needs no handle. Its executor is held unowned, as the
    /// runtime holds one: it must outlive its jobs anyway, and a retain and a release per
    /// job would buy nothing.
    private enum Work {
        case once(ScheduledAction)
        case repeating(RepeatingAction)
        /// A clock's wake-up: the sleep is its own handle, so it allocates none.
        case wakeUp(Sleep)
        // Two cases, not a flag: the entry stays two words, and the heap moves less.
        case job(UnownedJob, Unmanaged<SchedulerExecutor>)
        case nonisolatedJob(UnownedJob, Unmanaged<SchedulerExecutor>)
    }

    /// What a drive took to run: an action or a sleeper's continuation (taken, so no dispose
    /// or cancel can stop it now), or a job.
    private enum Due {
        case action(SchedulerAction)
        case wakeUp(UnsafeContinuation<Void, any Error>)
        case job(UnownedJob, Unmanaged<SchedulerExecutor>, isolated: Bool)
    }

    private typealias Entry = TimeOrderedQueue<Work>.Entry

    private struct State {
        var now: SchedulerTime
        var nextSequence: UInt64 = 0
        var queue = TimeOrderedQueue<Work>()

        mutating func insert(_ work: Work, at time: SchedulerTime) {
            // A past deadline runs at the present: virtual time never moves backwards.
            queue.insert(Entry(time: max(time, now), sequence: nextSequence, work: work))
            nextSequence += 1
        }

        /// Removes the earliest live entry due at or before `limit` and takes its action, so
        /// that it counts as started inside the caller's critical section: a dispose from
        /// another thread comes either before (and it is skipped) or after (and it runs).
        mutating func popDue(notAfter limit: SchedulerTime) -> (Entry, Due)? {
            while let first = queue.removeMin(notAfter: limit) {
                switch first.work {
                case .once(let item): if let action = item.claim() { return (first, .action(action)) }
                case .repeating(let item): if let action = item.action { return (first, .action(action)) }
                case .wakeUp(let sleep):
                    if let continuation = sleep.continuation.take() { return (first, .wakeUp(continuation)) }
                case .job(let job, let executor): return (first, .job(job, executor, isolated: true))
                case .nonisolatedJob(let job, let executor): return (first, .job(job, executor, isolated: false))
                }
            }
            return nil
        }
    }

    public let name: String
    public var capabilities: SchedulerCapabilities {
        [.asynchronous, .serial, .cancellation, .timers, .repeating, .virtualTime, .singleStep, .tracksCurrent]
    }
    private let state: Lock<State>
    /// `state.now`, stored in each critical section that moves it, so reading the time (every
    /// sleep does) takes no lock: a reader sees the time of a critical section that ended,
    /// or of one that is moving it, as it would by taking the lock just before or after.
    private let publishedNow: Atomic<UInt64>
    /// Held through a drive, so that drives from two threads run one after the other.
    private let gate = DriveGate()

    /// A test scheduler whose clock starts at `start`.
    public init(name: String = "TestScheduler", start: SchedulerTime = .zero) {
        self.name = name
        self.state = Lock(State(now: start))
        self.publishedNow = Atomic(start.nanoseconds)
    }

    public var now: SchedulerTime { SchedulerTime(uncheckedNanoseconds: publishedNow.load(ordering: .acquiring)) }

    /// The number of pending entries, disposed ones included until they are reached.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        // No scheduler in the entry: entries live in this scheduler's queue, and a reference
        // back would keep a dropped scheduler alive. `run(notAfter:)` sets the current one.
        let item = ScheduledAction(action, scheduler: nil)
        state.withLock { $0.insert(.once(item), at: $0.now) }
        return item
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let item = ScheduledAction(action, scheduler: nil)
        state.withLock { $0.insert(.once(item), at: deadline) }
        return item
    }

    /// A ``VirtualClock`` sleep. Its state is guarded by the scheduler's lock, which its
    /// wake-up takes anyway, so a sleep takes no lock of its own: a drive takes the
    /// continuation in the critical section that pops the wake-up, and a cancel takes it in
    /// one of its own, so exactly one of them resumes the task.
    final class Sleep: @unchecked Sendable {
        // @unchecked: both are read and written only under the scheduler's lock.
        fileprivate var continuation: UnsafeContinuation<Void, any Error>?
        private var cancelled = false
        /// Unowned: `VirtualClock.sleep`, which holds the clock and so the scheduler, outlasts
        /// its cancellation handler; one reference is what the handler captures, where two
        /// cost it a heap box a sleep.
        private unowned(unsafe) let scheduler: TestScheduler

        /// A sleep on `scheduler`'s clock.
        init(on scheduler: TestScheduler) { self.scheduler = scheduler }

        /// Parks the sleeping task until a drive reaches `deadline` (never, when nil: only a
        /// cancel ends it), or resumes it at once with `CancellationError` if it was cancelled.
        func park(_ continuation: UnsafeContinuation<Void, any Error>, until deadline: SchedulerTime?) {
            let cancelled = scheduler.state.withLock { state in
                guard !self.cancelled else { return true }
                self.continuation = continuation
                if let deadline { state.insert(.wakeUp(self), at: deadline) }
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
        }

        /// Cancels the sleep: its task throws `CancellationError`, unless a drive has taken
        /// its wake-up, which then resumes it normally (the clock decided first). Its queued
        /// entry is skipped when reached.
        func cancel() {
            let continuation = scheduler.state.withLock { _ in
                cancelled = true
                return self.continuation.take()
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    public func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        let repeating = RepeatingAction(action, intervalNanoseconds: spec.intervalNanoseconds)
        state.withLock { $0.insert(.repeating(repeating), at: deadline) }
        return repeating
    }

    /// Queues an executor's job as ``schedule(_:)`` would an action.
    func enqueue(_ job: UnownedJob, from executor: SchedulerExecutor, isolated: Bool) {
        let executor = Unmanaged.passUnretained(executor)
        let work = isolated ? Work.job(job, executor) : .nonisolatedJob(job, executor)
        state.withLock { $0.insert(work, at: $0.now) }
    }

    /// Runs the earliest pending action, moving time to it; false when nothing is pending.
    @discardableResult
    public func step() -> Bool {
        gate.drive { run(notAfter: .distantFuture, otherwiseMoveTo: nil) }
    }

    /// Runs everything due at or before `target`, including what those actions schedule,
    /// then sets the time to `target` (never backwards).
    public func advance(to target: SchedulerTime) {
        advance { _ in target }
    }

    /// Advances the time by `duration` from `now` as the drive finds it, so two advances by
    /// a second from two threads at once move it by two.
    /// - Throws: ``SchedulerError/overflow(_:)`` when the target time does not fit.
    public func advance(by duration: Duration) throws(SchedulerError) {
        try advance { now throws(SchedulerError) in try now.advanced(by: duration) }
    }

    /// As ``advance(to:)``, to the target `target` gives for the time the drive begins at.
    package func advance<Failure: Error>(_ target: (SchedulerTime) throws(Failure) -> SchedulerTime) throws(Failure) {
        try gate.drive { () throws(Failure) in
            let target = try target(now)
            while run(notAfter: target, otherwiseMoveTo: target) {}
        }
    }

    /// Runs every pending action, repeating ones included, until none is left, in one drive.
    /// - Returns: how many ran.
    @discardableResult
    public func stepAll() -> Int {
        gate.drive {
            var ran = 0
            while run(notAfter: .distantFuture, otherwiseMoveTo: nil) { ran += 1 }
            return ran
        }
    }

    /// Runs every pending action, repeating ones included, until none is left.
    /// - Returns: how many ran.
    @discardableResult
    public func run() -> Int { stepAll() }

    /// Moves the time to `time`, never backwards, inside the caller's critical section.
    @inline(__always)
    private func move(_ state: inout State, to time: SchedulerTime) {
        guard time > state.now else { return }
        state.now = time
        publishedNow.store(time.nanoseconds, ordering: .releasing)
    }

    /// Runs the earliest live action due at or before `limit`; false when there is none,
    /// in which case the clock moves to `target` in the same critical section, so work
    /// scheduled from another thread meanwhile can never be stamped with an older time.
    private func run(notAfter limit: SchedulerTime, otherwiseMoveTo target: SchedulerTime?) -> Bool {
        let due = state.withLock { state -> Due? in
            guard let (entry, due) = state.popDue(notAfter: limit) else {
                if let target { move(&state, to: target) }
                return nil
            }
            move(&state, to: entry.time)
            if case .repeating(let item) = entry.work,
                let next = try? entry.time.advanced(by: .nanoseconds(item.intervalNanoseconds))
            {
                // Queued before the tick runs, so work the tick schedules for the same
                // time comes after the next tick only if it is due later.
                state.insert(entry.work, at: next)
            }
            return due
        }
        switch due {
        case nil: return false
        case .action(let action)?: CurrentScheduler.run(as: self, action)
        // No current scheduler: a resume runs nothing of the user's, it enqueues a job.
        case .wakeUp(let continuation)?: continuation.resume()
        case .job(let job, let executor, let isolated)?:
            CurrentScheduler.run(as: self) { executor.takeUnretainedValue().run(job, isolated: isolated) }
        }
        return true
    }
}
