/// A `Clock` whose time is a ``TestScheduler``'s: `sleep(until:)` suspends until the
/// scheduler is advanced to the deadline, so `Task.sleep(for:clock:)` and everything built
/// on clocks run in virtual time.
///
/// Sleepers resume in deadline order, FIFO among equal deadlines, each while the scheduler's
/// time is its deadline; with the tasks on the scheduler's ``TestScheduler/executor``, each
/// one also runs then, and a sleep shorter than the advance can sleep again within it. A
/// deadline at or before `now` returns without suspending. Cancelling a sleeping task
/// deregisters its sleep at once and throws `CancellationError`, unless an advance already
/// began its wake-up, which then resumes it normally (the clock decided first).
///
/// ```swift
/// let scheduler = TestScheduler()
/// let clock = scheduler.clock
/// let executor = scheduler.executor // stored: an executor must outlive its jobs
/// let task = Task(executorPreference: executor) {
///     try await clock.sleep(for: .seconds(5))
/// }
/// clock.advance(by: .zero)      // the task starts and sleeps
/// clock.advance(by: .seconds(5)) // it wakes, and finishes, at t+5s
/// ```
public struct VirtualClock: Clock {
    /// A point in the scheduler's time: the time since its origin.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the scheduler's origin (``SchedulerTime/zero``).
        public var offset: Duration

        /// The instant `offset` after the origin.
        public init(offset: Duration) { self.offset = offset }

        /// This instant moved by `duration` (exact: offsets are 128-bit durations).
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `t+` and the offset.
        public var description: String { "t+\(offset)" }

        /// The first scheduler time at or after this instant (a deadline between two
        /// nanoseconds is due at the later one, never early); an instant before the origin is
        /// the origin; nil past what the scheduler can represent (about 292 years).
        var schedulerTime: SchedulerTime? {
            let (whole, fraction) = offset.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
            let nanoseconds = fraction > 0 ? whole + 1 : whole
            if nanoseconds <= 0 { return .zero }
            return nanoseconds > Int128(Int64.max) ? nil : SchedulerTime(uncheckedNanoseconds: UInt64(nanoseconds))
        }
    }

    /// The scheduler whose time this clock tells.
    public let scheduler: TestScheduler

    /// The clock of `scheduler`.
    public init(_ scheduler: TestScheduler) { self.scheduler = scheduler }

    /// The scheduler's time; while one of its actions runs, that action's time.
    public var now: Instant { Instant(offset: .nanoseconds(scheduler.now.nanoseconds)) }

    /// One nanosecond: the scheduler's unit of time.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the scheduler's time reaches `deadline` (never before); returns at once
    /// when it already has. `tolerance` is ignored: virtual time is exact.
    /// - Throws: `CancellationError` when the task is or becomes cancelled before then.
    // Runs on its caller's executor: nonisolated, a sleep from an actor on the scheduler's
    // executor would leave the actor for a job of its own and come back in another, each one
    // more pass through the scheduler's queue.
    public nonisolated(nonsending) func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if deadline <= now { return }
        let sleep = TestScheduler.Sleep(on: scheduler)
        // A deadline past what the scheduler can represent never comes: no wake-up, only
        // cancellation ends it (`run()` must not wake it early).
        let time = deadline.schedulerTime
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { sleep.park($0, until: time) }
        } onCancel: {
            sleep.cancel()
        }
    }

    /// Advances the scheduler by `duration` from the time its drive begins at (so two
    /// advances from two threads at once add up), running every action and job due meanwhile.
    public func advance(by duration: Duration) {
        scheduler.advance { now in
            Instant(offset: .nanoseconds(now.nanoseconds)).advanced(by: duration).schedulerTime ?? .distantFuture
        }
    }

    /// Advances the scheduler to `deadline` (never backwards), running everything due by then.
    public func advance(to deadline: Instant) {
        scheduler.advance(to: deadline.schedulerTime ?? .distantFuture)
    }

    /// Runs the scheduler until nothing is pending: every sleeper wakes, in order. With a
    /// repeating action on the scheduler this never returns: dispose it first.
    public func run() {
        scheduler.stepAll()
    }
}
