import Clocks
import CombineSchedulers
import Dispatch
import NIOCore
import NIOEmbedded
import OpenCombineDispatch
import SchedulerProbes
import Testing

/// The behaviours the matrix's explanations name, shown on the libraries alone, without the
/// suite: each test is the explanation's reproduction, and fails once the library changes
/// (then the explanation, and the matrix's expected failures, go too). The same programs are
/// printed in the Third-party matrix article.
@Suite struct LibraryBehaviourTests {
    /// nio-embedded LIN-7: tasks due at one instant run as one batch, so one cancelled by an
    /// earlier task of the batch still runs.
    @Test func anEmbeddedLoopRunsATaskCancelledByAnEarlierOneDueAtTheSameInstant() {
        let loop = EmbeddedEventLoop()
        let ran = Box<[String]>([])
        let second = Box<Scheduled<Void>?>(nil)
        _ = loop.scheduleTask(in: .zero) {
            ran.update { $0.append("first") }
            second.value?.cancel()
        }
        second.value = loop.scheduleTask(in: .zero) { ran.update { $0.append("second") } }
        loop.advanceTime(by: .zero)
        #expect(ran.value == ["first", "second"])
    }

    /// nio-embedded VT-10 (and LIN-2's, LIN-7's): a task whose deadline has passed runs with
    /// `now` set back to that deadline.
    @Test func anEmbeddedLoopRunsAPastDeadlineWithTheClockSetBack() {
        let loop = EmbeddedEventLoop()
        loop.advanceTime(by: .seconds(10))
        let seen = Box<NIODeadline?>(nil)
        _ = loop.scheduleTask(deadline: .uptimeNanoseconds(0)) { seen.value = loop.now }
        loop.advanceTime(by: .zero)
        #expect(seen.value == .uptimeNanoseconds(0))
        #expect(loop.now == .uptimeNanoseconds(10_000_000_000))
    }

    /// combine-schedulers-test LIN-2: its `advance(to:)` runs each action outside its lock,
    /// so an advance from a second thread runs its work while the first advance's action is
    /// still running.
    @Test func combinesTestSchedulerRunsTwoDrivesSideBySide() {
        let scheduler = DispatchQueue.test
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        let firstRunning = Box(false)
        let sawFirstRunning = Box<Bool?>(nil)
        scheduler.schedule {
            firstRunning.value = true
            entered.signal()
            release.wait()
            firstRunning.value = false
        }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(1))) {
            sawFirstRunning.value = firstRunning.value
        }
        DispatchQueue.global().async {
            scheduler.advance()
            firstDone.signal()
        }
        entered.wait()
        // From a third thread, with a deadline only as an upper bound: a library that kept
        // drives apart would hold this advance until the first returns, which waits for us.
        let secondDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            scheduler.advance(by: .milliseconds(1))
            secondDone.signal()
        }
        let secondReturned = secondDone.wait(timeout: .now() + .seconds(10)) == .success
        release.signal()
        firstDone.wait()
        if !secondReturned { secondDone.wait() }
        #expect(secondReturned)
        #expect(sawFirstRunning.value == true)
    }

    /// swift-clocks-testclock LIN-3: `advance(by:)` reads the time it adds to before its
    /// `advance(to:)` yields, and that sets the time to its own target without comparing, so
    /// of two advances by a second at once one is lost.
    @Test func swiftClocksTestClockLosesOneOfTwoAdvancesAtOnce() async {
        let clock = TestClock()
        let origin = clock.now
        async let first: Void = clock.advance(by: .seconds(1))
        async let second: Void = clock.advance(by: .seconds(1))
        _ = await (first, second)
        #expect(origin.duration(to: clock.now) == .seconds(1))
    }
}
