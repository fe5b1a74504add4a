import Foundation
import Testing

@testable import SchedulerProbes

/// The evidence racing rules read about a thread: whether it kept its core between two marks,
/// and whether its core took an interrupt.
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

    /// Every core is counted, and a timer that wakes a thread pinned to a core is an interrupt
    /// of that core.
    @Test(.enabled(if: CoreInterrupts.now() != nil, "the platform does not count interrupts per core"))
    func aTimerWakingAThreadIsAnInterruptOfItsCore() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let first = try #require(CoreInterrupts.now())
        #expect(first.counts.count >= cores)
        let seen = Box(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            CorePinning.pinCurrentThread(toCore: 0)
            let core = CorePinning.currentCore ?? 0
            guard let before = CoreInterrupts.now() else {
                done.signal()
                return
            }
            usleep(5_000)
            seen.value = CoreInterrupts.now()?.interrupted(core, since: before) == true
            done.signal()
        }.start()
        done.wait()
        #expect(seen.value)
        #expect(zip(first.counts, try #require(CoreInterrupts.now()).counts).allSatisfy { $0 <= $1 })
    }
}
