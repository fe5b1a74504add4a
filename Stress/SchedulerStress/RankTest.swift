import SchedulerVocabulary

/// The Mann–Whitney U test: whether one sample tends to rank above or below another, with no
/// assumption about the shape of either distribution. Benchmark numbers on a shared machine
/// are skewed and have outliers on one side, which a rank test shrugs off and a t-test or a
/// fixed percentage does not.
///
/// Written by hand: no package on this machine offers it, and it is small. Exact for small
/// samples without ties; a normal approximation with tie and continuity corrections otherwise.
public enum RankTest {
    /// The U statistic of `x` and its one-sided p-values.
    public struct Result: Sendable, Equatable {
        /// Pairs (x, y) with x above y, a tie counting one half.
        public var u: Double
        /// The chance, were both samples from one distribution, that `x` ranks at least this
        /// far above `y`.
        public var greater: Double
        /// The same chance for ranking at least this far below.
        public var less: Double
    }

    /// Largest `x.count × y.count` for which the exact distribution is computed: its cost
    /// grows as (m·n)², and beyond this the normal approximation is close.
    static let exactLimit = 2_500

    /// Compares `x` with `y`; both must be non-empty.
    public static func mannWhitney(_ x: [Double], _ y: [Double]) -> Result {
        precondition(!x.isEmpty && !y.isEmpty, "RankTest.mannWhitney needs two non-empty samples")
        let m = x.count
        let n = y.count
        var u = 0.0
        for a in x {
            for b in y {
                if a > b { u += 1 } else if a == b { u += 0.5 }
            }
        }
        let all = (x + y).sorted()
        let tied = zip(all, all.dropFirst()).contains { $0 == $1 }
        if !tied && (m * n <= exactLimit || min(m, n) == 1) {
            let counts = distribution(m, n)
            let total = counts.reduce(0, +)
            let observed = Int(u)
            let atMost = counts[0...observed].reduce(0, +)
            let atLeast = counts[observed...].reduce(0, +)
            return Result(u: u, greater: atLeast / total, less: atMost / total)
        }
        // Normal approximation: the variance shrinks by the ties, and half a count of
        // continuity correction keeps small samples from looking more significant than they are.
        let mean = Double(m * n) / 2
        var tieTerm = 0.0
        var index = 0
        while index < all.count {
            var end = index
            while end + 1 < all.count && all[end + 1] == all[index] { end += 1 }
            let t = Double(end - index + 1)
            tieTerm += t * t * t - t
            index = end + 1
        }
        let size = Double(m + n)
        let variance = Double(m * n) / 12 * ((size + 1) - tieTerm / (size * (size - 1)))
        guard variance > 0 else { return Result(u: u, greater: 1, less: 1) }
        let deviation = variance.squareRoot()
        return Result(
            u: u,
            greater: upperTail((u - 0.5 - mean) / deviation),
            less: upperTail((mean - u - 0.5) / deviation)
        )
    }

    /// How many of the C(m+n, m) orderings of two tie-free samples give each U, 0…m·n:
    /// the coefficients of the Gaussian binomial, built one element of `x` at a time.
    static func distribution(_ m: Int, _ n: Int) -> [Double] {
        // One value against many: each of its n + 1 ranks is one ordering.
        if min(m, n) == 1 { return [Double](repeating: 1, count: m * n + 1) }
        // The distribution is the same with the samples swapped; the table below holds
        // n + 1 rows of up to m·n counts, so let n be the smaller.
        if n > m { return distribution(n, m) }
        // previous[j][u]: orderings of i − 1 x-values among j y-values with U = u.
        var previous = (0...n).map { _ in [1.0] }
        for i in 1...m {
            var current: [[Double]] = [[1.0]]
            for j in 1...n {
                // The last of the i + j values is an x (above all j y-values: U gains j) or a y.
                var row = [Double](repeating: 0, count: i * j + 1)
                for (u, count) in previous[j].enumerated() { row[u + j] += count }
                for (u, count) in current[j - 1].enumerated() { row[u] += count }
                current.append(row)
            }
            previous = current
        }
        return previous[n]
    }

    /// P(Z ≥ z) for a standard normal Z.
    static func upperTail(_ z: Double) -> Double {
        0.5 * erfc(z / 2.0.squareRoot())
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
