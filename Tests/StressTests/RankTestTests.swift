import SchedulerConformance
import SchedulerProbes
import Testing

@testable import SchedulerStress

/// The Mann–Whitney U test against brute force: for tie-free samples small enough to
/// enumerate every way of splitting the pooled values, the p-values are exact.
@Suite struct RankTestTests {
    /// P-values by enumerating every choice of which pooled values form `x`.
    static func bruteForce(_ x: [Double], _ y: [Double]) -> (greater: Double, less: Double) {
        let pooled = x + y
        let m = x.count
        let observed = RankTest.mannWhitney(x, y).u
        var atLeast = 0
        var atMost = 0
        var total = 0
        func choose(_ start: Int, _ chosen: [Int]) {
            if chosen.count == m {
                let picked = Set(chosen)
                let first = chosen.map { pooled[$0] }
                let second = pooled.indices.filter { !picked.contains($0) }.map { pooled[$0] }
                let u = first.reduce(0.0) { sum, a in sum + Double(second.filter { a > $0 }.count) }
                total += 1
                if u >= observed { atLeast += 1 }
                if u <= observed { atMost += 1 }
                return
            }
            guard start < pooled.count else { return }
            for index in start..<pooled.count { choose(index + 1, chosen + [index]) }
        }
        choose(0, [])
        return (Double(atLeast) / Double(total), Double(atMost) / Double(total))
    }

    @Test func exactPValuesMatchEnumeration() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<40 {
            let m = Int(generator.next() % 5) + 1
            let n = Int(generator.next() % 7) + 1
            let x = (0..<m).map { _ in Double(generator.next() % 1_000_000) + 0.25 }
            let y = (0..<n).map { _ in Double(generator.next() % 1_000_000) + 0.75 }
            let result = RankTest.mannWhitney(x, y)
            let expected = Self.bruteForce(x, y)
            #expect(abs(result.greater - expected.greater) < 1e-12, "\(x) vs \(y)")
            #expect(abs(result.less - expected.less) < 1e-12, "\(x) vs \(y)")
        }
    }

    @Test func knownCases() {
        // Completely separated samples of three: one ordering in C(6, 3) = 20.
        let below = RankTest.mannWhitney([1, 2, 3], [4, 5, 6])
        #expect(below.u == 0 && abs(below.less - 0.05) < 1e-12 && below.greater == 1)
        // One value above 19 others: the rank test of a single night against 19 nights.
        let single = RankTest.mannWhitney([100], (1...19).map(Double.init))
        #expect(abs(single.greater - 0.05) < 1e-12)
        // One value above 9,999 others: exact, and with no table of 10,000 rows.
        let night = RankTest.mannWhitney([1e9], (1...9_999).map(Double.init))
        #expect(abs(night.greater - 1e-4) < 1e-12 && night.less == 1)
        // Identical samples: no evidence either way.
        let same = RankTest.mannWhitney([5, 5, 5], [5, 5, 5])
        #expect(same.u == 4.5 && same.greater == 1 && same.less == 1)
    }

    @Test func theNormalApproximationAgreesWithTheExactTest() {
        // Large enough to be approximated when ties force it; compare with the exact value
        // of the same samples without ties.
        let x = (0..<30).map { Double($0) * 2 + 1.5 }
        let y = (0..<40).map { Double($0) * 2 }
        let exact = RankTest.mannWhitney(x, y)
        let tied = RankTest.mannWhitney(x + [1_000], y + [1_000])
        #expect(abs(tied.greater - exact.greater) < 0.05, "\(tied) vs \(exact)")
        // A clear shift is significant either way.
        let shifted = RankTest.mannWhitney(x.map { $0 + 100 } + [1_000], y + [1_000])
        #expect(shifted.greater < 1e-6 && shifted.less > 0.99)
    }
}
