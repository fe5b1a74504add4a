import SchedulerProbes
import Synchronization

/// Whether the trials swept every offset at which the two calls meet. Where they meet is
/// read from the trials, not assumed (how long a call runs past its risky point depends on
/// what the race did): from the offset of the hundredth-lowest meeting to that of the
/// hundredth-highest (a trial delayed inside a call but kept on its core can meet far out,
/// once). The sweep covered that span when trials whose threads kept their cores also
/// reached past both of its ends without meeting (so the pauses reached further than the
/// threads' skew: a release from the barrier skewed past the sweep leaves one end where
/// the trials stopped, not where the calls do), and no stretch inside it went without a
/// meeting (no gap wider than two of ``steps`` steps). A window between two critical
/// sections lies inside the span, and some trial's offset fell into it.
struct OffsetCoverage {
    /// Steps across the span: tens of nanoseconds each in a debug build, near a clock read in
    /// an optimised one.
    static let steps = 48
    /// Meetings fewer than this judge nothing.
    static let fewest = 200
    /// The offsets at which the calls met, in nanoseconds (thread 1's risky point minus
    /// thread 0's), the outer hundredths left out.
    let range: ClosedRange<Double>
    /// Whether kept trials reached past each end of ``range`` without meeting.
    let pastEnds: (below: Bool, above: Bool)
    /// The widest stretch inside the span with no meeting, and a step, in nanoseconds.
    let widestGap: Double
    let step: Double

    /// The coverage of `trials` whose threads kept their cores and measured their offset.
    init(_ trials: [CallRace.Trial]) {
        let met = trials.filter(\.met).compactMap(\.offset).sorted()
        guard met.count >= Self.fewest else {
            range = 0...0
            pastEnds = (false, false)
            widestGap = .infinity
            step = 0
            return
        }
        let inner = met[met.count / 100..<met.count - met.count / 100]
        let (low, high) = (inner.first!, inner.last!)
        range = low...high
        let missed = trials.filter { !$0.met }.compactMap(\.offset)
        pastEnds = (missed.contains { $0 < low }, missed.contains { $0 > high })
        step = (high - low) / Double(Self.steps)
        widestGap = zip(inner.dropFirst(), inner).map { $0 - $1 }.max() ?? 0
    }

    /// Whether the trials reached past both ends and left no gap.
    var isComplete: Bool { pastEnds.below && pastEnds.above && widestGap <= 2 * step }

    /// What is missing, for the rule's message.
    var shortfall: String {
        guard step > 0 else { return "fewer than \(Self.fewest) trials met" }
        var missing: [String] = []
        if !pastEnds.below { missing.append("no trial reached below it without meeting") }
        if !pastEnds.above { missing.append("no trial reached above it without meeting") }
        if widestGap > 2 * step { missing.append("a stretch of \(Int(widestGap)) ns inside it had no meeting") }
        return "the calls met at offsets from \(Int(range.lowerBound)) to \(Int(range.upperBound)) ns, but "
            + missing.joined(separator: ", and ")
    }
}
