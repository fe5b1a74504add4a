import Testing

@testable import SchedulerConformance

/// When the racing rules may call their sweep complete: the offsets where the calls met are
/// covered without a gap, and trials reached past both ends without meeting.
@Suite struct OffsetCoverageTests {
    /// A trial whose threads kept their cores, at `offset`, that met or not.
    private func trial(_ offset: Double, met: Bool) -> CallRace.Trial {
        CallRace.Trial(spans: met ? [(0, 2), (1, 3)] : [(0, 1), (2, 3)], kept: true, offset: offset)
    }

    /// Meetings every nanosecond across `meetings`, and misses at `misses`.
    private func trials(meetings: ClosedRange<Int>, misses: [Double]) -> [CallRace.Trial] {
        meetings.map { trial(Double($0), met: true) } + misses.map { trial($0, met: false) }
    }

    @Test func aSweepPastBothEndsWithNoGapIsComplete() {
        let coverage = OffsetCoverage(trials(meetings: -300...300, misses: [-500, 500]))
        #expect(coverage.isComplete, "\(coverage.shortfall)")
    }

    @Test func aSweepThatStopsWhereTheCallsStillMeetIsNot() {
        // Skewed: the trials never got far enough below to stop meeting.
        let coverage = OffsetCoverage(trials(meetings: -300...300, misses: [500]))
        #expect(!coverage.isComplete)
        #expect(coverage.shortfall.contains("no trial reached below it without meeting"))
    }

    @Test func aGapInsideTheMeetingsIsNotCovered() {
        let around = trials(meetings: -300...300, misses: [-500, 500])
        let coverage = OffsetCoverage(around.filter { !($0.met && (0...40).contains($0.offset!)) })
        #expect(!coverage.isComplete)
        #expect(coverage.shortfall.contains("had no meeting"), "\(coverage.shortfall)")
    }

    @Test func aFewFarMeetingsDoNotStretchTheSpan() {
        // A trial delayed inside a call can meet far out, once: the outer hundredths are left
        // out, so its lone meeting neither widens the span nor opens a gap in it.
        let coverage = OffsetCoverage(trials(meetings: -300...300, misses: [-500, 500]) + [trial(-20_000, met: true)])
        #expect(coverage.isComplete, "\(coverage.shortfall)")
    }

    @Test func tooFewMeetingsJudgeNothing() {
        let coverage = OffsetCoverage(trials(meetings: 0...50, misses: [-100, 100]))
        #expect(!coverage.isComplete)
        #expect(coverage.shortfall.contains("fewer than"))
    }

    /// REC-4's evidence of calls made against each other: a stamp that follows the other
    /// thread's, and none for bursts that only touch.
    @Test func interleavedCallsCountTheSwitchesBetweenThreads() {
        #expect(interleavedCalls([1, 3, 5], [2, 4, 6]) == 5)
        #expect(interleavedCalls([1, 2, 3], [4, 5, 6]) == 1)
        #expect(interleavedCalls([1, 2, 7], [3, 4]) == 2)
        #expect(interleavedCalls([], [1, 2]) == 0)
    }
}
