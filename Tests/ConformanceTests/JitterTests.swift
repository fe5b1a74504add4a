import Testing

@testable import SchedulerConformance

/// How a run's jitter chooses its meeting: what the model-checked rules rely on to make the
/// risky overlaps happen, checked over many seeds, since each seed chooses once.
@Suite struct JitterTests {
    static let seeds: [UInt64] = Array(1...600)

    /// An advance from 0 to 3 ms, on thread 1, beside a thread that starts three sleepers:
    /// due at 0 (before the advance's way), at 2 (on it) and at 5 (beyond it).
    static func advanceBesideSleepers(dues: [Int: Int]) -> [Jitter] {
        seeds.map { seed in
            Jitter(
                seed: seed,
                aims: [[.crossing(passing: 1...3)], [.makes(1, due: 0), .makes(2, due: 2), .makes(3, due: 5)]],
                points: [1, 2, 3], dues: dues)
        }
    }

    @Test func anAdvanceMeetsTheSleepersDueOnItsWayAndCountsThoseMeetingsApart() {
        let jitters = Self.advanceBesideSleepers(dues: [1: 0, 2: 2, 3: 5])
        let passing = jitters.compactMap(\.meeting).filter(\.passes)
        // Half the runs meet a call and a point; with a sleeper on the advance's way, all of those pass it.
        #expect(passing.count > Self.seeds.count / 3)
        for meeting in passing {
            #expect(meeting.parties == [.call(thread: 1, index: 0), .actionReturn(2)])
            #expect(meeting.kind == .passing)
            // The sleeper goes first: the advance comes up to 4 µs after it.
            #expect(meeting.lag >= .zero && meeting.lag < .microseconds(4))
        }
    }

    @Test func withoutDeadlinesNoMeetingPasses() {
        let meetings = Self.advanceBesideSleepers(dues: [:]).compactMap(\.meeting)
        #expect(!meetings.isEmpty)
        #expect(meetings.allSatisfy { !$0.passes && $0.kind != .passing })
    }

    /// A dispose aimed at action 1 on one thread, a schedule that makes action 2 on another.
    static func disposeBesideSchedule(short: Set<Jitter.MeetingKind>?) -> [Jitter.MeetingKind] {
        seeds.compactMap { seed in
            Jitter(seed: seed, aims: [[.action(1)], [.makes(2)]], points: [1, 2], short: short).meeting?.kind
        }
    }

    @Test func drawsGoToTheKindOfMeetingAnExplorationIsStillShortOf() {
        let either = Self.disposeBesideSchedule(short: nil)
        #expect(either.contains(.calls) && either.contains(.callAndReturn))
        // Enough meetings of two calls: every run meets a call and a return instead.
        let returns = Self.disposeBesideSchedule(short: [.callAndReturn])
        #expect(returns.count == Self.seeds.count && returns.allSatisfy { $0 == .callAndReturn })
        // Enough of those: every run meets two calls.
        let calls = Self.disposeBesideSchedule(short: [.calls])
        #expect(calls.count == Self.seeds.count && calls.allSatisfy { $0 == .calls })
        // Short of both, or of neither: the draws stay as they were.
        #expect(Self.disposeBesideSchedule(short: [.calls, .callAndReturn]) == either)
        #expect(Self.disposeBesideSchedule(short: []) == either)
    }

    @Test func anExplorationNeedsItsShareOfEachKindOfMeeting() {
        var summary = ScenarioExplorer.Summary()
        summary.callMeetings = 300
        summary.returnMeetings = 300
        summary.passingMeetings = 119
        #expect(summary.shortKind(of: [.calls, .callAndReturn], needing: 300) == nil)
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], needing: 300) == .passing)
        summary.passingMeetings = 120
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], needing: 300) == nil)
        summary.callMeetings = 299
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], needing: 300) == .calls)
    }
}
