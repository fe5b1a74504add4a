import Synchronization

/// A `Clock` whose time is a ``TestScheduler``'s: `sleep(until:)` suspends until the
/// scheduler is advanced to the deadline, so `Task.sleep(for:clock:)` and everything built
/// on clocks run in virtual time.
///
/// Sleepers resume in deadline order, FIFO among equal deadlines, each while the scheduler's
/// time is its deadline; with the tasks on the scheduler's ``TestScheduler/executor``, each
/// one also runs then, and a sleep shorter than the advance can sleep again within it. A
/// deadline at or before `now` returns without suspending. Cancelling a sleeping task
/// deregisters its sleep at once and throws `CancellationError`.
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
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if deadline <= now { return }
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleeper.install(continuation) else { return }
                // A deadline past what the scheduler can represent never comes: no wake-up,
                // only cancellation ends it (`run()` must not wake it early).
                guard let time = deadline.schedulerTime else { return }
                let handle = try? scheduler.schedule(at: time) { sleeper.finish(nil) }
                sleeper.keep(handle)
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
    }

    /// Advances the scheduler by `duration`, running every action and job due meanwhile.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
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

/// One suspended `sleep`: resumed exactly once, by its deadline or by cancellation,
/// whichever comes first; cancellation also withdraws the scheduled wake-up, so a cancelled
/// sleeper neither runs nor keeps the scheduler (or its closure) busy.
private final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var wakeUp: (any Disposable)?
        /// Set by the first `finish`; the error it carried, if any.
        var finished: (any Error)??
    }

    private let state = Mutex(State())

    /// Stores the continuation; when the sleeper was cancelled already, resumes it with
    /// that error instead and returns false.
    func install(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let finished = state.withLock { state -> (any Error)?? in
            if state.finished == nil { state.continuation = continuation }
            return state.finished
        }
        guard let finished else { return true }
        if let error = finished { continuation.resume(throwing: error) } else { continuation.resume() }
        return false
    }

    /// Keeps the scheduled wake-up so cancellation can withdraw it.
    func keep(_ wakeUp: (any Disposable)?) {
        let late = state.withLock { state -> Bool in
            if state.finished != nil { return true }
            state.wakeUp = wakeUp
            return false
        }
        if late { wakeUp?.dispose() }
    }

    /// Resumes the sleeper: normally for `nil`, throwing `error` otherwise. Only the first
    /// call counts.
    func finish(_ error: (any Error)?) {
        let (continuation, wakeUp) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, (any Disposable)?) in
            guard state.finished == nil else { return (nil, nil) }
            state.finished = .some(error)
            defer { state.continuation = nil; state.wakeUp = nil }
            return (state.continuation, state.wakeUp)
        }
        if error != nil { wakeUp?.dispose() }
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
