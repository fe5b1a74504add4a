/// A point in time on a scheduler's clock, in nanoseconds since that clock's origin.
///
/// Points in time and lengths of time are different types: a `SchedulerTime` is a
/// deadline, a `Duration` is a delay or an interval. Real-time schedulers use the
/// monotonic uptime clock that Dispatch uses, so their deadlines never move with the
/// wall clock; a virtual-time scheduler starts its clock at ``zero``.
public struct SchedulerTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin; always <= `Int64.max` so that every
    /// conversion to Dispatch and to `Duration` is exact.
    public let nanoseconds: UInt64

    /// The origin of the clock.
    public static let zero = SchedulerTime(uncheckedNanoseconds: 0)

    /// The latest representable time.
    public static let distantFuture = SchedulerTime(uncheckedNanoseconds: UInt64(Int64.max))

    /// A time `nanoseconds` after the clock's origin.
    /// - Throws: ``SchedulerError/overflow(_:)`` when `nanoseconds > Int64.max`.
    // mutation-exempt: a conversion for adapters that no scheduler here calls, so no rule
    // reaches it; TimeTests checks it.
    public init(nanoseconds: UInt64) throws(SchedulerError) {
        guard nanoseconds <= UInt64(Int64.max) else { throw .overflow("time \(nanoseconds)ns") }
        self.nanoseconds = nanoseconds
    }

    init(uncheckedNanoseconds: UInt64) {
        self.nanoseconds = uncheckedNanoseconds
    }

    /// This time moved by `duration`; moving before the origin clamps to ``zero`` because
    /// every earlier deadline means "now" anyway.
    /// - Throws: ``SchedulerError/overflow(_:)`` when the result or `duration` does not fit.
    public func advanced(by duration: Duration) throws(SchedulerError) -> SchedulerTime {
        let delta = try duration.checkedNanoseconds()
        let (sum, overflow) = Int64(nanoseconds).addingReportingOverflow(delta)
        if overflow { throw .overflow("\(self) + \(duration)") }
        return SchedulerTime(uncheckedNanoseconds: UInt64(max(sum, 0)))
    }

    /// The length of time from this time to `other` (negative when `other` is earlier).
    public func duration(to other: SchedulerTime) -> Duration {
        .nanoseconds(Int64(other.nanoseconds) - Int64(nanoseconds))
    }

    public static func < (lhs: SchedulerTime, rhs: SchedulerTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public var description: String { "t+\(nanoseconds)ns" }
}

extension Duration {
    /// This duration as a signed count of nanoseconds, truncating below a nanosecond.
    /// - Throws: ``SchedulerError/overflow(_:)`` when it does not fit in an `Int64`.
    public func checkedNanoseconds() throws(SchedulerError) -> Int64 {
        // `components` itself traps beyond Int64.max seconds; the 128-bit count does not.
        guard let nanoseconds = Int64(exactly: attoseconds / 1_000_000_000) else { throw .overflow("duration \(self)") }
        return nanoseconds
    }

    /// A duration of `seconds`, refusing what `Duration.seconds(_:)` would trap on.
    /// - Throws: ``SchedulerError/notFinite(seconds:)`` for NaN or infinity,
    ///   ``SchedulerError/overflow(_:)`` when it does not fit in an `Int64` of nanoseconds.
    // mutation-exempt: a conversion for adapters that no scheduler here calls, so no rule
    // reaches it; TimeTests checks it.
    public static func checkedSeconds(_ seconds: Double) throws(SchedulerError) -> Duration {
        guard seconds.isFinite else { throw .notFinite(seconds: seconds) }
        let nanoseconds = (seconds * 1e9).rounded(.towardZero)
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        guard abs(nanoseconds) < 9.223372036854775808e18 else { throw .overflow("\(seconds) seconds") }
        return .nanoseconds(Int64(nanoseconds))
    }
}

/// A validated repeating request: what every repeating implementation checks first.
public struct RepeatSpec: Sendable, Equatable {
    /// The interval in nanoseconds, > 0.
    public let intervalNanoseconds: Int64
    /// The leeway in nanoseconds, >= 0.
    public let leewayNanoseconds: Int64

    /// Validates a repeating request.
    /// - Throws: ``SchedulerError/invalidInterval(_:)`` for `interval <= 0` (or below one
    ///   nanosecond), ``SchedulerError/invalidLeeway(_:)`` for `leeway < 0`,
    ///   ``SchedulerError/overflow(_:)`` for values beyond a 64-bit nanosecond count.
    public init(interval: Duration, leeway: Duration) throws(SchedulerError) {
        let intervalNanoseconds = try interval.checkedNanoseconds()
        guard intervalNanoseconds > 0 else { throw .invalidInterval(interval) }
        let leewayNanoseconds = try leeway.checkedNanoseconds()
        guard leewayNanoseconds >= 0 else { throw .invalidLeeway(leeway) }
        self.intervalNanoseconds = intervalNanoseconds
        self.leewayNanoseconds = leewayNanoseconds
    }
}
