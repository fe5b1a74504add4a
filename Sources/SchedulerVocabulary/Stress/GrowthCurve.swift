import Foundation

/// The cost per action of one workload at growing sizes, and the fitted exponent: what a
/// run of the `growth` scenario reports.
public struct GrowthCurve: Codable, Sendable, Equatable {
    /// What grows.
    public enum Workload: String, Codable, Sendable {
        /// n actions queued on a virtual-time scheduler at distinct times, then one advance.
        case drain = "virtual-time drain"
        /// One trampolined action that schedules n nested ones.
        case nested = "trampoline queue"
        /// Producer threads scheduling n actions between them.
        case fanIn = "fan-in"
    }

    public var workload: Workload
    /// The sizes measured, ascending.
    public var sizes: [Int]
    /// The median cost per action at each size.
    public var nanosecondsPerAction: [Double]
    /// k in time ∝ nᵏ, by least squares on the logarithms; nil with fewer than two sizes.
    public var exponent: Double?
    /// k for the same sizes (and up to 10⁴ at least) queued by one thread while the worker
    /// was held, then drained alone: measured only when a fan-in was fitted from rounds in
    /// which the machine preempted the process, and then what the verdict follows (nil
    /// otherwise).
    public var heldExponent: Double?

    /// A curve of `workload` measured at `sizes`; the held drain's exponent is set after.
    public init(
        workload: Workload, sizes: [Int], nanosecondsPerAction: [Double], exponent: Double?,
        heldExponent: Double? = nil
    ) {
        self.workload = workload
        self.sizes = sizes
        self.nanosecondsPerAction = nanosecondsPerAction
        self.exponent = exponent
        self.heldExponent = heldExponent
    }

    /// Up to this exponent, the cost per action does not grow.
    public static let linear = 1.1
    /// Over this exponent, the work grows faster than n log n does over three decades.
    public static let superlinear = 1.3

    /// The slope of log(seconds) over log(size): k in seconds ∝ sizeᵏ.
    public static func exponent(_ points: [(size: Int, seconds: Double)]) -> Double? {
        let usable = points.filter { $0.size > 0 && $0.seconds > 0 }
        guard usable.count >= 2 else { return nil }
        return leastSquaresSlope(usable.map { (log(Double($0.size)), log($0.seconds)) })
    }
}

/// The least-squares slope of `points` (the growth exponent on logarithms, the soak's bytes
/// per 10⁶ actions); nil when every x is the same.
package func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double? {
    guard !points.isEmpty else { return nil }
    let meanX = points.map(\.x).reduce(0, +) / Double(points.count)
    let meanY = points.map(\.y).reduce(0, +) / Double(points.count)
    let variance = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
    guard variance > 0 else { return nil }
    return points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / variance
}
