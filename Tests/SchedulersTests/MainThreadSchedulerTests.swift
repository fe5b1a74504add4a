import Foundation
import SchedulerProbes
import Schedulers
import Testing
import XCTest

/// XCTest runs its tests on the main thread, which is what these need: Swift Testing's
/// main actor is drained by `dispatchMain()`, which on Linux gives up the main thread.
final class MainThreadSchedulerXCTests: XCTestCase {
    func testIsAsynchronousEvenOnTheMainThreadAndRunsThereAsCurrent() throws {
        XCTAssertTrue(Thread.isMainThread)
        XCTAssertTrue(
            CurrentScheduler.value === MainThreadScheduler.shared, "the main thread defaults to the main scheduler")
        XCTAssertNil(CurrentScheduler.explicitValue)
        let observed = Lock<(Bool, Bool)?>(nil)
        let order = Recorder<Int>()
        MainThreadScheduler.shared.schedule {
            observed.withLock {
                $0 = (Thread.isMainThread, CurrentScheduler.explicitValue === MainThreadScheduler.shared)
            }
            order.record(1)
        }
        MainThreadScheduler.shared.schedule { order.record(2) }
        XCTAssertNil(observed.withLock { $0 }, "ran inline")
        XCTAssertTrue(
            try MainThreadScheduler.drain(
                until: { order.count == 2 }, timeout: .seconds(20) * ThreadSanitizerBuild.slowdown))
        XCTAssertEqual(order.all, [1, 2])
        let (onMain, current) = try XCTUnwrap(observed.withLock { $0 })
        XCTAssertTrue(onMain)
        XCTAssertTrue(current)
        XCTAssertNil(CurrentScheduler.explicitValue, "restored after the action")
    }

    func testDelayedActionRunsOnTheMainThread() throws {
        let onMain = Lock<Bool?>(nil)
        try MainThreadScheduler.shared.schedule(after: .milliseconds(5)) {
            onMain.withLock { $0 = Thread.isMainThread }
        }
        XCTAssertTrue(
            try MainThreadScheduler.drain(
                until: { onMain.withLock { $0 } != nil }, timeout: .seconds(20) * ThreadSanitizerBuild.slowdown))
        XCTAssertEqual(onMain.withLock { $0 }, true)
    }
}

@Suite struct MainThreadSchedulerTests {
    @Test func drainRefusesOtherThreads() {
        let refused = onFreshThread {
            (try? MainThreadScheduler.drain(until: { true }, timeout: .seconds(1))) == nil
        }
        #expect(refused == true)
    }
}
