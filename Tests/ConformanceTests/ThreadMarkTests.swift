import Foundation
import Testing

@testable import SchedulerProbes

/// The evidence racing rules read about a thread: whether it kept its core between two marks.
@Suite struct ThreadMarkTests {
    private func mark(thread: Int = 7, switches: Int = 3, monotonic: Int64, running: Int64) -> ThreadMark {
        ThreadMark(thread: thread, switches: switches, monotonic: monotonic, running: running)
    }

    /// A host that takes the core leaves the guest's switch count alone but the thread's
    /// processor time behind the clock: 30 µs the thread did not run is a lost core.
    @Test func theClockRunningAheadOfTheThreadsTimeIsALostCore() {
        let before = mark(monotonic: 1_000_000, running: 500_000)
        let stolen = mark(monotonic: 1_050_000, running: 520_000)
        #expect(stolen.evidence(since: before) == .preempted)
        let kept = mark(monotonic: 1_050_000, running: 549_000)
        #expect(kept.evidence(since: before) == .notPreempted)
    }

    @Test func aSwitchOrAnotherThreadIsNotAKeptCore() {
        let before = mark(monotonic: 0, running: 0)
        #expect(mark(switches: 4, monotonic: 10_000, running: 10_000).evidence(since: before) == .preempted)
        #expect(mark(thread: 8, monotonic: 10_000, running: 10_000).evidence(since: before) == .unknown)
        #expect(mark(monotonic: 10_000, running: 10_000).evidence(since: nil) == .unknown)
    }

    /// Marks read on a real thread: a sleep between them gives the core away.
    @Test(.enabled(if: ThreadMark.now() != nil, "the platform does not count switches per thread"))
    func aSleepBetweenTwoMarksIsALostCore() throws {
        let before = try #require(ThreadMark.now())
        usleep(2_000)
        #expect(ThreadMark.now()?.evidence(since: before) == .preempted)
    }
}
