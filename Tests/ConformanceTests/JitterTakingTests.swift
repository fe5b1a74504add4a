import Foundation
import SchedulerProbes
import Testing

@testable import SchedulerConformance

/// A cancel aimed at the moment a manual clock's run takes the sleeper it cancels: where it
/// is aimed, what it learns from, and where it is not aimed because the outcome would not show.
@Suite struct JitterTakingTests {
    static let (run, cancel) = (Jitter.Party.call(thread: 1, index: 0), Jitter.Party.call(thread: 2, index: 0))

    /// The meetings of a run on thread 1 beside thread 2's `calls`, with sleepers due at `dues`.
    static func meetings(
        _ calls: [Jitter.Aim], dues: [Int: Int], drive: Jitter.Aim = .crossing(resumesAll: true),
        learned: Jitter.LearnedLags = .init()
    ) -> [Jitter.Meeting] {
        JitterTests.seeds.compactMap { seed in
            Jitter(seed: seed, aims: [[drive], calls], points: [], dues: dues, learned: learned).meeting
        }
    }

    @Test func aCancelOfTheSleeperDueLastMeetsTheRunThatTakesIt() {
        let meetings = Self.meetings([.point(1)], dues: [1: 3, 2: 1]).filter { $0.race != nil }
        // Two runs in three.
        #expect(meetings.count > JitterTests.seeds.count / 2)
        for meeting in meetings {
            #expect(meeting.race == .taking(of: 1))
            #expect(meeting.parties == [Self.run, Self.cancel] && meeting.lagging == Self.cancel)
            #expect(meeting.kind == .calls)
            // Within 1.5 µs of the first guess, 1 µs after the run.
            #expect(meeting.lag >= .microseconds(-0.5) && meeting.lag < .microseconds(2.5))
        }
    }

    @Test func noCancelIsAimedWhereTheTimeWouldNotShowWhoTookTheSleeper() {
        let none: [[Jitter.Meeting]] = [
            // Another sleeper due as late would move the time there too.
            Self.meetings([.point(1)], dues: [1: 3, 2: 3]),
            // A sleeper due later would move the run past it.
            Self.meetings([.point(1)], dues: [1: 2, 2: 3]),
            // A second drive moves the time on.
            Self.meetings([.point(1), .crossing(passing: 1...2)], dues: [1: 3]),
            // An advance ends at its target, whoever took the sleeper.
            Self.meetings([.point(1)], dues: [1: 3], drive: .crossing(passing: 1...4)),
            // A sleeper the calls start may not be asleep when the run begins.
            Self.meetings([.makes(1, due: 3), .point(1)], dues: [1: 3]),
        ]
        for meetings in none { #expect(!meetings.isEmpty && meetings.allSatisfy { $0.race == nil }) }
    }

    /// A taking meeting of sleeper 1 that happened (both calls on a core at once, tried again
    /// until they were), after which sleeper `ended` ended, returning or not.
    static func taking(ended: Int, returned: Bool) -> Jitter.Meeting? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let meeting = Jitter.Meeting([run, cancel], lag: .zero, race: .taking(of: 1), lagging: cancel)
            let ran = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                meeting.arrive(run)
                ran.signal()
            }
            meeting.arrive(cancel)
            ran.wait()
            guard meeting.happened else { continue }
            meeting.ended(ended, returned: returned)
            return meeting
        }
        return nil
    }

    @Test func aTakingMeetingTellsWhetherTheSleepReturnedAndIsAimedByWhatThatTaught() throws {
        let late = try #require(Self.taking(ended: 1, returned: true))
        #expect(late.callLate == true)
        #expect(try #require(Self.taking(ended: 1, returned: false)).callLate == false)
        // Another sleeper's end says nothing: the race is not decided yet.
        #expect(try #require(Self.taking(ended: 2, returned: true)).callLate == nil)
        var learned = Jitter.LearnedLags()
        for _ in 0..<10 { learned.learn(from: late) }
        #expect(learned.taking.centre == -1_000 && learned.start.centre == 1_000)
        let lags = Self.meetings([.point(1)], dues: [1: 3], learned: learned).compactMap {
            $0.race == nil ? nil : $0.lag
        }
        #expect(!lags.isEmpty && lags.allSatisfy { $0 >= .microseconds(-2.5) && $0 < .microseconds(0.5) })
    }

    /// Whether `scenario`'s runs can aim a cancel at its run's take, as the explorer sees it.
    static func offersTaking(_ scenario: Scenario<ManualClockModel.Operation>) -> Bool {
        Jitter(
            seed: 1, aims: scenario.parallel.map { $0.map(ManualClockScenarios.aim) }, points: [],
            dues: scenario.operations.reduce(into: [:]) { dues, operation in
                if case .makes(let point, let due?) = ManualClockScenarios.aim(operation) { dues[point] = due }
            }
        ).offersTaking
    }

    @Test func aboutOneScenarioInEightOffersACancelOfWhatTheRunTakes() {
        let scenarios = (1...2_000 as ClosedRange<UInt64>).map { seed in
            var random = SplitMix64(seed: seed)
            return ManualClockScenarios.generate(&random)
        }
        let offering = scenarios.filter(Self.offersTaking)
        // A run is one drive in eight; three in four of those are given the shape.
        #expect(offering.count > scenarios.count / 12 && offering.count < scenarios.count / 5)
        let withoutRun = (1...500 as ClosedRange<UInt64>).map { seed in
            var random = SplitMix64(seed: seed)
            return ManualClockScenarios.generate(&random, run: false)
        }
        #expect(!withoutRun.contains(where: Self.offersTaking))
    }

    @Test func anExplorationWhoseScenariosOfferTakingsNeedsSixtyOfThem() {
        var summary = ScenarioExplorer.Summary()
        summary.takingMeetings = 0
        #expect(!summary.takingsShort(in: .standard))
        summary.takingScenarios = 1
        summary.takingMeetings = 59
        #expect(summary.takingsShort(in: .standard))
        summary.takingMeetings = 60
        #expect(!summary.takingsShort(in: .standard))
        #expect(
            !summary.takingsShort(in: Exploration(meetings: 100)) && summary.metDescription.contains("60 of a cancel"))
    }
}
