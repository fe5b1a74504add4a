import Foundation
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
            // The advance comes within 1.5 µs of the aim's first guess, 2 µs after the sleeper.
            #expect(meeting.lag >= .microseconds(0.5) && meeting.lag < .microseconds(3.5))
        }
    }

    @Test func passingMeetingsFollowWhatTheAimLearned() throws {
        var aim = Jitter.LearnedLag(centre: 2_000)
        for _ in 0..<10 { aim.learn(callLate: false) }
        #expect(aim.centre == 4_000)
        for _ in 0..<5 { aim.learn(callLate: true) }
        #expect(aim.centre == 3_000)
        var learned = Jitter.LearnedLags()
        let early = try #require(Self.meeting(.passing, point: Self.nothing, call: Self.nothing))
        for _ in 0..<5 { learned.learn(from: early) }
        #expect(learned.passing.centre == 3_000 && learned.start.centre == 1_000)
        let lags = Self.seeds.compactMap { seed in
            Jitter(
                seed: seed, aims: [[.crossing(passing: 1...3)], [.makes(2, due: 2)]], points: [2], dues: [2: 2],
                learned: learned
            ).meeting.flatMap { $0.passes ? $0.lag : nil }
        }
        #expect(lags.count > Self.seeds.count / 3)
        #expect(lags.allSatisfy { $0 >= .microseconds(1.5) && $0 < .microseconds(4.5) })
        // Both halves of the spread are drawn: the window before the crossing as well as after.
        #expect(lags.contains { $0 < .microseconds(3) } && lags.contains { $0 > .microseconds(3) })
        // However lopsided what it sees, the aim stays where a meeting can wait.
        for _ in 0..<1_000 { aim.learn(callLate: true) }
        #expect(aim.centre == -4_000)
        for _ in 0..<1_000 { aim.learn(callLate: false) }
        #expect(aim.centre == 20_000)
    }

    /// A meeting aimed at `race` of call 0 of thread 1 and point 2 (sleeper 2 for a passing
    /// meeting, action 1's return for a dispose of 2) that happened (both on a core at once,
    /// tried again until they were), after which the point's thread runs `point` and the
    /// call's thread runs `call`, then returns.
    static func meeting(
        _ race: Jitter.Meeting.Race, point: @escaping @Sendable (Jitter.Meeting) -> Void,
        call: (Jitter.Meeting) -> Void
    ) -> Jitter.Meeting? {
        let party = Jitter.Party.actionReturn(race == .passing ? 2 : 1)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let meeting = Jitter.Meeting([.call(thread: 1, index: 0), party], lag: .zero, race: race)
            let pointDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                meeting.arrive(party)
                point(meeting)
                pointDone.signal()
            }
            meeting.arrive(.call(thread: 1, index: 0))
            pointDone.wait()
            guard meeting.happened else { continue }
            call(meeting)
            meeting.returned(.call(thread: 1, index: 0))
            return meeting
        }
        return nil
    }

    @Sendable static func nothing(_: Jitter.Meeting) {}
    @Sendable static func resumeTwo(_ meeting: Jitter.Meeting) { meeting.resumed(2) }

    @Test func aPassingMeetingTellsWhichSideOfTheRaceItsCallLandedOn() throws {
        // The advance resumed the sleeper before returning: the sleeper went to sleep first.
        let resumedByTheCall = try #require(Self.meeting(.passing, point: Self.nothing, call: Self.resumeTwo))
        #expect(resumedByTheCall.callLate == true)
        // The sleeper's task only handed itself back to its executor (a hop), on its own thread.
        let hopped = try #require(Self.meeting(.passing, point: Self.resumeTwo, call: Self.nothing))
        #expect(hopped.callLate == false)
        // Resumed only after the advance returned (by the next one): the advance went first.
        let late = try #require(Self.meeting(.passing, point: Self.nothing, call: Self.nothing))
        late.resumed(2)
        #expect(late.callLate == false)
        // Another sleeper's resumption says nothing about this one.
        let other = try #require(Self.meeting(.passing, point: Self.nothing, call: { $0.resumed(3) }))
        #expect(other.callLate == false)
        // Only a meeting aimed at a race tells.
        #expect(Jitter.Meeting([.call(thread: 1, index: 0), .actionReturn(2)], lag: .zero).callLate == nil)
    }

    @Test func aDisposeMeetingTellsWhetherItsActionStartedFirstAndIsAimedByWhatThatTaught() throws {
        let started = try #require(Self.meeting(.start(of: 2), point: Self.nothing, call: { $0.ran(2) }))
        #expect(started.callLate == true)
        let disposedInTime = try #require(Self.meeting(.start(of: 2), point: Self.nothing, call: { $0.ran(3) }))
        #expect(disposedInTime.callLate == false)
        var learned = Jitter.LearnedLags()
        for _ in 0..<10 { learned.learn(from: started) }
        #expect(learned.start.centre == -1_000 && learned.passing.centre == 2_000)
        // A dispose of 2 beside a schedule: its meetings with 1's return go first, by what was learned.
        let meetings = Self.seeds.compactMap {
            Jitter(seed: $0, aims: [[.action(2)], [.makes(3)]], points: [1, 2, 3], learned: learned).meeting
        }.filter { $0.race != nil }
        #expect(meetings.count > Self.seeds.count / 4)
        for meeting in meetings {
            #expect(meeting.race == .start(of: 2))
            #expect(meeting.parties == [.call(thread: 1, index: 0), .actionReturn(1)])
            #expect(meeting.lag >= .microseconds(-2.5) && meeting.lag < .microseconds(0.5))
        }
    }

    /// An arrival meeting that happened: the point's action ran inside an advance (call 0 of
    /// thread 2); the meeting's call made action 3 for the present, which ran inside that
    /// advance or after it returned.
    static func arrival(madeRunsInTheAdvance: Bool) -> Jitter.Meeting? {
        let (advance, call) = (Jitter.Party.call(thread: 2, index: 0), Jitter.Party.call(thread: 1, index: 0))
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let meeting = Jitter.Meeting(
                [call, .actionReturn(1)], lag: .zero, race: .arrival(of: 3), advancers: [advance])
            let advanced = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                meeting.calling(advance)
                meeting.arrive(.actionReturn(1))
                if madeRunsInTheAdvance { meeting.ran(3) }
                meeting.returned(advance)
                advanced.signal()
            }
            meeting.arrive(call)
            advanced.wait()
            guard meeting.happened else { continue }
            if !madeRunsInTheAdvance { meeting.ran(3) }
            return meeting
        }
        return nil
    }

    @Test func anArrivalMeetingTellsWhetherTheAdvanceRanTheNewActionAndIsAimedByWhatThatTaught() throws {
        #expect(try #require(Self.arrival(madeRunsInTheAdvance: true)).callLate == false)
        let late = try #require(Self.arrival(madeRunsInTheAdvance: false))
        #expect(late.callLate == true)
        var learned = Jitter.LearnedLags()
        for _ in 0..<10 { learned.learn(from: late) }
        #expect(learned.arrival.centre == -1_500 && learned.start.centre == 1_000)
        // A schedule for the present beside an advance: some of its meetings with a return aim
        // at the advance's last look, by what was learned.
        let meetings = Self.seeds.compactMap {
            Jitter(seed: $0, aims: [[.arrives(3)], [.advances]], points: [1, 2, 3], learned: learned).meeting
        }.filter { $0.race != nil }
        #expect(meetings.count > Self.seeds.count / 8)
        for meeting in meetings {
            #expect(meeting.race == .arrival(of: 3))
            #expect(meeting.lag >= .microseconds(-3) && meeting.lag < .microseconds(0))
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
        let exploration = Exploration(meetings: 300)
        summary.callMeetings = 300
        summary.returnMeetings = 300
        summary.passingMeetings = 119
        #expect(summary.shortKind(of: [.calls, .callAndReturn], in: exploration) == nil)
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], in: exploration) == .passing)
        summary.passingMeetings = 120
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], in: exploration) == nil)
        summary.callMeetings = 299
        #expect(summary.shortKind(of: [.calls, .callAndReturn, .passing], in: exploration) == .calls)
        // A rule that needs more meetings of a call and a return than of the others.
        var more = Exploration(meetings: 200)
        more.returnMeetings = 301
        summary.callMeetings = 200
        #expect(summary.shortKind(of: [.calls, .callAndReturn], in: more) == .callAndReturn)
        summary.returnMeetings = 301
        #expect(summary.shortKind(of: [.calls, .callAndReturn], in: more) == nil)
    }
}
