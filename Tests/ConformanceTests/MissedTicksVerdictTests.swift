import Schedulers
import Testing

@testable import SchedulerConformance

/// TIM-16's verdict on timelines written out by hand: what the machine's delays can do to
/// one attempt, made certain. The timer starts at 0 with a 40 ms interval (a second after the
/// clock's zero, as a real clock's start is far from it); tick 1 stalls.
@Suite struct MissedTicksVerdictTests {
    private let rule = RepeatingMissedTicks()

    private func attempt(stallEnd: Double, runsAfter: [Double]) throws -> RepeatingMissedTicks.Attempt {
        func at(_ milliseconds: Double) throws -> SchedulerTime {
            try SchedulerTime(nanoseconds: UInt64((1_000 + milliseconds) * 1e6))
        }
        return try RepeatingMissedTicks.Attempt(
            begin: at(0), starts: ([0, 40] + runsAfter).map(at), stallEnd: at(stallEnd))
    }

    /// A timer that drops what it missed (as Foundation's does on Linux when its own action
    /// stalled), the stall delayed until 1 ms before the grid point at 200 ms: that point's run
    /// falls where a merged run is looked for, and passed the undeclared timer as merging in a
    /// loaded nightly run.
    @Test func aStallEndingJustBeforeAGridPointProvesNothing() throws {
        let dropping = try attempt(stallEnd: 199, runsAfter: [200.3, 240.2, 280.2, 320.2, 360.2])
        for policy in [MissedTicks.coalesced, .skipped] {
            let verdict = rule.verdict(dropping, policy: policy, fixedDelay: false)
            guard case .inconclusive(let why) = verdict else {
                Issue.record("\(policy): \(verdict)")
                continue
            }
            #expect(why.contains("before a grid point"), "\(why)")
        }
    }

    /// A timer that merges what it missed, declaring that it bursts, its stall ending 1 ms
    /// before a grid point: the merged run and that point's own share the slot the stall ended
    /// in, which is no burst (it passed so); the runs are too few for one. Nor is it a merge for
    /// certain: a burst's runs before that point would fall outside the aligned slots.
    @Test func aMergedRunBesideAGridPointIsNoBurst() throws {
        let merging = try attempt(stallEnd: 199, runsAfter: [199.3, 200.2, 240.2, 280.2, 320.2])
        guard case .inconclusive(let why) = rule.verdict(merging, policy: .burst, fixedDelay: false) else {
            Issue.record("a merging timer was not found inconclusive against its declaration that it bursts")
            return
        }
        #expect(why.contains("too few for a burst"), "\(why)")
    }

    /// The same timers, the stall ending mid-interval: the verdicts the rule is for.
    @Test func aStallEndingMidIntervalTellsMergingFromDropping() throws {
        let merging = try attempt(stallEnd: 190, runsAfter: [190.3, 200.2, 240.2, 280.2, 320.2])
        let dropping = try attempt(stallEnd: 190, runsAfter: [200.3, 240.2, 280.2, 320.2, 360.2])
        #expect(rule.verdict(merging, policy: .coalesced, fixedDelay: false) == .passed)
        #expect(rule.verdict(dropping, policy: .skipped, fixedDelay: false) == .passed)
        guard case .failed = rule.verdict(merging, policy: .skipped, fixedDelay: false) else {
            Issue.record("a merging timer passed the declaration that it drops missed ticks")
            return
        }
        guard case .inconclusive(let why) = rule.verdict(dropping, policy: .coalesced, fixedDelay: false) else {
            Issue.record("a dropping timer was not found inconclusive undeclared")
            return
        }
        #expect(why.contains(".missedTicks(.skipped)"), "\(why)")
    }
}
