import Foundation

/// The live heap and resident memory after each round of a soak, and the growth fitted to
/// them: what a run of the `soak` scenario reports.
public struct MemoryCurve: Codable, Sendable, Equatable {
    /// One sample, taken when the scheduler was quiet.
    public struct Sample: Codable, Sendable, Equatable {
        /// Actions run so far.
        public var actions: Int
        /// jemalloc's allocated bytes (nil without jemalloc).
        public var liveBytes: UInt64?
        /// Resident bytes (nil without jemalloc).
        public var residentBytes: UInt64?

        /// A sample after `actions` actions.
        package init(actions: Int, liveBytes: UInt64?, residentBytes: UInt64?) {
            self.actions = actions
            self.liveBytes = liveBytes
            self.residentBytes = residentBytes
        }
    }

    /// The samples, thinned to at most `maximumSamples` evenly spaced ones (the floors are
    /// fitted before the thinning).
    public var samples: [Sample]
    /// Bytes the heap's floor grew per 10⁶ actions over the run's second half.
    public var liveGrowthPerMillion: Double?
    /// The same for resident memory, which the allocator returns to the system in its own time.
    public var residentGrowthPerMillion: Double?
    /// The share of the second half's windows whose heap floor rose above the one before:
    /// a leak raises every one; memory held for reuse (libdispatch keeps, per thread, the
    /// blocks it ran, up to 65,536) rises in steps and falls back, so some windows do not.
    public var liveRisingShare: Double?

    /// Whether the heap grew with the work: faster than ``leakThreshold``, and in every
    /// window (``risingShare``).
    public var leaks: Bool {
        (liveGrowthPerMillion ?? 0) > Self.leakThreshold && (liveRisingShare ?? 0) >= Self.risingShare
    }

    /// Above this many bytes per 10⁶ actions, the heap grows with the work: a leak.
    public static let leakThreshold = 1_024.0
    /// A leak raises the floor in every window: what is kept for good never falls back, while
    /// memory held for reuse rises in steps and falls back.
    public static let risingShare = 1.0
    /// Fewer rounds than this give no verdict (inconclusive): eight windows of four.
    public static let minimumRounds = 64
    package static let maximumSamples = 400
    /// The second half is cut into this many windows, and each window's lowest sample is
    /// its floor: a round's stragglers (a closure a worker thread frees just after the
    /// round's last count) raise single samples, never the floor.
    package static let windows = 8

    /// The curve fitted to `all` the samples of a run.
    package init(samples all: [Sample]) {
        let live = Self.floors(all) { $0.liveBytes }
        liveGrowthPerMillion = live.flatMap(leastSquaresSlope)
        liveRisingShare = live.map { floors in
            // A window rises only by at least what a leak at the threshold adds over the actions
            // between the two: the allocator's own jitter (tens of bytes) is no rise. Counted
            // as any rise, one step of a concurrent scheduler's pool and that jitter make most
            // windows "rise", and a correct scheduler would fail.
            Double(zip(floors, floors.dropFirst()).filter { $1.y - $0.y >= Self.leakThreshold * ($1.x - $0.x) }.count)
                / Double(max(floors.count - 1, 1))
        }
        residentGrowthPerMillion = Self.floors(all) { $0.residentBytes }.flatMap(leastSquaresSlope)
        let stride = max(1, (all.count + Self.maximumSamples - 1) / Self.maximumSamples)
        samples = Swift.stride(from: 0, to: all.count, by: stride).map { all[$0] }
    }

    /// Each window's floor over the second half, as (10⁶ actions, bytes); nil with too few
    /// rounds or no values.
    package static func floors(_ samples: [Sample], _ value: (Sample) -> UInt64?) -> [(x: Double, y: Double)]? {
        guard samples.count >= minimumRounds else { return nil }
        let half = Array(samples.suffix(samples.count / 2))
        let size = max(1, half.count / windows)
        var points: [(x: Double, y: Double)] = []
        for start in Swift.stride(from: 0, to: half.count - size + 1, by: size) {
            let window = half[start..<(start + size)]
            guard let floor = window.compactMap(value).min() else { return nil }
            let middle = window[window.startIndex + window.count / 2].actions
            points.append((Double(middle) / 1e6, Double(floor)))
        }
        return points.count >= 2 ? points : nil
    }
}
