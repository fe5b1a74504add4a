import SchedulerConformance
import SchedulerConformanceTesting
import Testing
import WorkerThreadScheduler
import XCTest

/// One call checks the scheduler against every rule it claims.
@Test func workerThreadSchedulerConforms() {
    let results = assertConformance(ConformanceSubject(name: "worker-thread") { WorkerThreadScheduler() })
    // It claims no timers, so the timer rules are skipped, with the reason.
    #expect(results.first { $0.rule == "TIM-1" }?.status == .skipped)
}

/// The same from XCTest, which runs on the main thread.
final class WorkerThreadSchedulerXCTests: XCTestCase {
    func testOrderingRules() {
        assertConformance(
            ConformanceSubject(name: "worker-thread") { WorkerThreadScheduler() },
            rules: RuleCatalogue.all.filter { $0.category == .ordering }
        )
    }
}
