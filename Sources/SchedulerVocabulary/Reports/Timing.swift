import Dispatch
import Schedulers

/// The time bounds every rule uses, calibrated to the machine at start-up.
///
/// "Must happen" bounds are upper bounds only: a passing rule never waits for them. "Must
/// not happen" checks prefer a later sentinel on the same serial scheduler; only where no
/// sentinel exists do they wait out ``quietWindow``.
public struct Timing: Sendable, Codable, Equatable {
    /// How long to wait for something that must happen before declaring it missing.
    public var mustHappen: Duration
    /// How long to watch for something that must not happen when no sentinel can prove it.
    public var quietWindow: Duration
    /// How late a real-time timer may fire and still pass.
    public var lateness: Duration
    /// How long one rule may run before the watchdog reports a timeout.
    public var ruleTimeout: Duration

    /// Explicit bounds, for tests and for subjects that need their own.
    public init(mustHappen: Duration, quietWindow: Duration, lateness: Duration, ruleTimeout: Duration) {
        self.mustHappen = mustHappen
        self.quietWindow = quietWindow
        self.lateness = lateness
        self.ruleTimeout = ruleTimeout
    }

    /// Measures how late a 1 ms Dispatch timer fires on this machine now, and derives the
    /// bounds from the worst of a few samples, multiplied by `scale` (to loosen them on a
    /// slow or loaded machine). Takes about 30 ms.
    public static func calibrate(scale: Double = 1) -> Timing {
        let queue = DispatchQueue(label: "calibration")
        var worst: UInt64 = 0
        for _ in 0..<12 {
            let done = DispatchSemaphore(value: 0)
            let deadline = DispatchTime.now() + .milliseconds(1)
            nonisolated(unsafe) var firedAt: UInt64 = 0
            queue.asyncAfter(deadline: deadline) {
                firedAt = DispatchTime.now().uptimeNanoseconds
                done.signal()
            }
            done.wait()
            worst = max(worst, firedAt &- deadline.uptimeNanoseconds)
        }
        return Timing(measuredLateness: .nanoseconds(Int64(min(worst, 1_000_000_000))), scale: scale)
    }

    /// Bounds derived from a measured worst lateness: 20× the measurement, at least
    /// 50 ms, at most 2 s (a loaded 2-core machine routinely shows 5–20 ms).
    ///
    /// In `make tsan`'s build the pure upper bounds (``mustHappen``, ``ruleTimeout``) also
    /// grow by the sanitizer's slowdown: passing code never waits for them, and the sanitizer
    /// must not turn slowness into a failure. The lateness comes from the measurement, which
    /// already runs under the sanitizer.
    public init(measuredLateness: Duration, scale: Double = 1) {
        let scale = max(scale, 0.1)
        let lateness = min(max(measuredLateness * 20, .milliseconds(50)), .seconds(2)) * scale
        self.init(
            mustHappen: .seconds(10) * scale * ThreadSanitizerBuild.slowdown,
            quietWindow: lateness,
            lateness: lateness,
            ruleTimeout: .seconds(90) * scale * ThreadSanitizerBuild.slowdown
        )
    }
}

extension Timing {
    /// How long a racing rule may go on gathering its evidence before it gives up short of
    /// it (inconclusive): `standard`, except in `make tsan`'s build, where it is an eighth.
    ///
    /// There the suite looks for data races on the paths a rule takes, and its first trials
    /// take them as its thousandth would (the sanitizer sees a race by the order of events,
    /// whichever way the race resolved). Ten times slower, a racing rule seldom gathers its
    /// evidence there anyway, and would spend its whole budget to come out inconclusive, one
    /// rule at a time. Each rule's verdict is `make test`'s to give.
    package static func evidenceBudget(_ standard: Duration) -> Duration {
        ThreadSanitizerBuild.isEnabled ? standard / 8 : standard
    }
}

extension Duration {
    /// In seconds, for Foundation and for reports.
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

extension Timing {
    enum CodingKeys: String, CodingKey {
        case mustHappen = "mustHappenSeconds"
        case quietWindow = "quietWindowSeconds"
        case lateness = "latenessSeconds"
        case ruleTimeout = "ruleTimeoutSeconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mustHappen.timeInterval, forKey: .mustHappen)
        try container.encode(quietWindow.timeInterval, forKey: .quietWindow)
        try container.encode(lateness.timeInterval, forKey: .lateness)
        try container.encode(ruleTimeout.timeInterval, forKey: .ruleTimeout)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func duration(_ key: CodingKeys) throws -> Duration {
            .nanoseconds(Int64(try container.decode(Double.self, forKey: key) * 1e9))
        }
        self.init(
            mustHappen: try duration(.mustHappen), quietWindow: try duration(.quietWindow),
            lateness: try duration(.lateness), ruleTimeout: try duration(.ruleTimeout)
        )
    }
}
