import Schedulers

/// A clock under test, as the CLK rules see it: any `Clock` whose durations are
/// `Swift.Duration`, with its instants told as offsets from an origin instant taken when
/// the adapter was made, so every rule is written once for every clock.
///
/// Three shapes, by what the clock does with a sleep:
/// - ``init(_:)``: a real clock (`ContinuousClock`, `SuspendingClock`): sleeps suspend
///   until its time reaches the deadline; claims `SchedulerCapabilities/asynchronous`.
/// - `init(immediate:)`: a clock whose sleeps return at once and move its time to the
///   deadline (swift-clocks' `ImmediateClock`); claims `SchedulerCapabilities/synchronous`.
/// - `init(_:advance:run:sleepersRunOn:)` and `init(_:blockingAdvance:blockingRun:sleepersRunOn:)`:
///   a manual clock, whose time moves only when it is advanced (a test clock); claims
///   `SchedulerCapabilities/asynchronous` and `SchedulerCapabilities/virtualTime`.
public struct ClockUnderTest: Sendable {
    /// What the clock promises.
    public let capabilities: SchedulerCapabilities
    /// The clock's time, as the offset from the adapter's origin.
    public let now: @Sendable () -> Duration
    /// The clock's `minimumResolution`.
    public let minimumResolution: @Sendable () -> Duration
    /// `sleep(until: origin + offset, tolerance:)`.
    public let sleepUntil: @Sendable (_ offset: Duration, _ tolerance: Duration?) async throws -> Void
    /// The clock's own `sleep(for:)`.
    public let sleepFor: @Sendable (Duration) async throws -> Void
    /// What breaks the instant and duration laws at `offset` (empty when nothing does).
    package let lawViolations: @Sendable (Duration) -> [String]
    /// How a manual clock is moved; nil for the others.
    public let driver: Driver?
    /// Where tasks that sleep on the clock should run (a virtual clock's executor, so that
    /// advancing it runs them too); nil lets the suite choose.
    public let sleeperExecutor: (any TaskExecutor)?

    /// How a manual clock's time is moved; `run` is nil for a clock that has no run until
    /// idle, only advances.
    public enum Driver: Sendable {
        /// From plain code: the suite calls these on its own thread.
        case blocking(advance: @Sendable (Duration) -> Void, run: (@Sendable () -> Void)?)
        /// From a task.
        case async(advance: @Sendable (Duration) async -> Void, run: (@Sendable () async -> Void)?)
    }

    /// Whether the clock is a manual one that can run until no sleeper is left (`run()`).
    /// The rules about `run()` judge a clock without one by its advances instead (CLK-9,
    /// CLK-10), and LIN-3's scenarios only advance it.
    public var hasRun: Bool {
        switch driver {
        case .blocking(_, let run)?: run != nil
        case .async(_, let run)?: run != nil
        case nil: false
        }
    }

    private init<C: Clock>(
        _ clock: C, capabilities: SchedulerCapabilities, driver: Driver?, sleeperExecutor: (any TaskExecutor)?,
        sleepFor: (@Sendable (C, Duration) async throws -> Void)?
    ) where C.Duration == Duration {
        let origin = clock.now
        self.capabilities = capabilities
        self.now = { origin.duration(to: clock.now) }
        self.minimumResolution = { clock.minimumResolution }
        self.sleepUntil = { offset, tolerance in
            try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance)
        }
        self.sleepFor = { duration in
            if let sleepFor { try await sleepFor(clock, duration) } else { try await clock.sleep(for: duration) }
        }
        self.lawViolations = { offset in InstantLaws.violations(at: origin.advanced(by: offset)) }
        self.driver = driver
        self.sleeperExecutor = sleeperExecutor
    }

    /// A real clock: sleeps suspend until its own time reaches their deadline.
    ///
    /// - Parameters:
    ///   - clock: the clock under test.
    ///   - sleepFor: the clock's own `sleep(for:)`, when its type shadows the protocol's (a
    ///     generic adapter only ever sees the protocol's).
    public init<C: Clock>(_ clock: C, sleepFor: (@Sendable (C, Duration) async throws -> Void)? = nil)
    where C.Duration == Duration {
        self.init(clock, capabilities: [.asynchronous], driver: nil, sleeperExecutor: nil, sleepFor: sleepFor)
    }

    /// A clock whose sleeps never suspend: each returns at once, the clock's time moved to
    /// its deadline.
    public init<C: Clock>(immediate clock: C, sleepFor: (@Sendable (C, Duration) async throws -> Void)? = nil)
    where C.Duration == Duration {
        self.init(clock, capabilities: [.synchronous], driver: nil, sleeperExecutor: nil, sleepFor: sleepFor)
    }

    /// A manual clock moved from a task: `advance(clock, duration)` moves its time and
    /// resumes what is due, `run(clock)` advances until no sleeper is left. A clock with no
    /// such call passes nil: an adapter must not make one up (a run built from advances
    /// judges the adapter, not the clock), and the rules about `run()` then judge advances.
    ///
    /// - Parameters:
    ///   - clock: the clock under test.
    ///   - advance: moves the clock's time by a duration and resumes what is due.
    ///   - run: advances until no sleeper is left; nil for a clock without it.
    ///   - executor: where sleeping tasks must run for advancing to run them as well (nil:
    ///     anywhere; the suite then waits for them to settle).
    ///   - sleepFor: the clock's own `sleep(for:)`, when its type shadows the protocol's.
    public init<C: Clock>(
        _ clock: C,
        advance: @escaping @Sendable (C, Duration) async -> Void,
        run: (@Sendable (C) async -> Void)?,
        sleepersRunOn executor: (any TaskExecutor)? = nil,
        sleepFor: (@Sendable (C, Duration) async throws -> Void)? = nil
    ) where C.Duration == Duration {
        self.init(
            clock, capabilities: [.asynchronous, .virtualTime],
            driver: .async(
                advance: { await advance(clock, $0) }, run: run.map { run in { @Sendable in await run(clock) } }),
            sleeperExecutor: executor, sleepFor: sleepFor
        )
    }

    /// A manual clock moved from plain code, as `VirtualClock` is; see
    /// ``init(_:advance:run:sleepersRunOn:sleepFor:)``.
    public init<C: Clock>(
        _ clock: C,
        blockingAdvance advance: @escaping @Sendable (C, Duration) -> Void,
        blockingRun run: (@Sendable (C) -> Void)?,
        sleepersRunOn executor: (any TaskExecutor)? = nil,
        sleepFor: (@Sendable (C, Duration) async throws -> Void)? = nil
    ) where C.Duration == Duration {
        self.init(
            clock, capabilities: [.asynchronous, .virtualTime],
            driver: .blocking(advance: { advance(clock, $0) }, run: run.map { run in { @Sendable in run(clock) } }),
            sleeperExecutor: executor, sleepFor: sleepFor
        )
    }

    /// A `VirtualClock` with its sleepers on its scheduler's executor, so advancing it
    /// runs them, deterministically.
    public init(_ clock: VirtualClock) {
        self.init(
            clock, blockingAdvance: { $0.advance(by: $1) }, blockingRun: { $0.run() },
            sleepersRunOn: clock.scheduler.executor
        )
    }
}

/// The laws every `InstantProtocol` must keep, checked around one instant out to a century
/// each way: moving by a duration and measuring it back agree, order agrees with the sign of
/// the duration, and nothing wraps.
enum InstantLaws {
    static let spans: [Duration] = [
        .zero, .nanoseconds(1), .nanoseconds(999), .milliseconds(1), .seconds(1), .seconds(86_400),
        .seconds(86_400 * 365 * 100), .seconds(86_400 * 365 * 300),
    ]

    static func violations<I: InstantProtocol>(at instant: I) -> [String] where I.Duration == Duration {
        var found: [String] = []
        for span in spans {
            for signed in span == .zero ? [span] : [span, .zero - span] {
                let moved = instant.advanced(by: signed)
                if instant.duration(to: moved) != signed {
                    found.append("now + (\(signed)) is \(instant.duration(to: moved)) from now")
                }
                if moved.duration(to: instant) != .zero - signed {
                    found.append(
                        "now is \(moved.duration(to: instant)) from now + (\(signed)), expected \(.zero - signed)")
                }
                if (signed > .zero) != (instant < moved) || (signed == .zero) != (instant == moved) {
                    found.append(
                        """
                        now + (\(signed)) compares \
                        \(moved < instant ? "before" : moved == instant ? "equal to" : "after") now
                        """
                    )
                }
                if moved.advanced(by: .zero - signed) != instant {
                    found.append("now + (\(signed)) - (\(signed)) is not now")
                }
            }
        }
        return found
    }
}
