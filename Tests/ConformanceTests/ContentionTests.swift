import Foundation
import Synchronization
import Testing

@testable import SchedulerProbes

/// What the suite's waits read to choose between yielding and napping: whether every core has
/// more work waiting than it can run.
@Suite struct ContentionTests {
    /// More spinning threads than cores (and one to spare, for the suite's own spinner) is read
    /// as oversubscribed, within a generous deadline: the reading is cached for 10 ms, and the
    /// threads must first be running.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/loadavg"), "no /proc/loadavg here"))
    func moreSpinningThreadsThanCoresAreSeen() {
        let stop = Atomic<Bool>(false)
        let spinners = ProcessInfo.processInfo.activeProcessorCount + 3
        let started = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        for _ in 0..<spinners {
            Thread.detachNewThread {
                started.signal()
                while !stop.load(ordering: .relaxed) {}
                stopped.signal()
            }
        }
        for _ in 0..<spinners { started.wait() }
        let deadline = ContinuousClock.now + .seconds(10)
        var seen = false
        while !seen, ContinuousClock.now < deadline {
            seen = Contention.coresOversubscribed
            if !seen { usleep(2_000) }
        }
        stop.store(true, ordering: .relaxed)
        for _ in 0..<spinners { stopped.wait() }
        #expect(seen, "\(spinners) spinning threads on \(ProcessInfo.processInfo.activeProcessorCount) cores")
    }
}
