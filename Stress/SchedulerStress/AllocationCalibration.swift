import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// Allocates a known number of objects on several threads and reads the count back, to
/// prove that the allocation statistics are right across threads.
public enum AllocationCalibration {
    /// What was expected and what the allocator counted.
    public struct Result: Sendable {
        public var allocator: String
        public var expected: Int
        /// Allocation requests counted, or nil without jemalloc.
        public var counted: UInt64?

        /// Within 1% of the expected count; trivially true without statistics.
        public var passed: Bool {
            guard let counted else { return true }
            return abs(Double(counted) - Double(expected)) <= Double(expected) * 0.01
        }

        public var summary: String {
            guard let counted else {
                return "allocator system: no allocation statistics ("
                    + (ThreadSanitizerBuild.isEnabled
                        ? "ThreadSanitizer's allocator replaces jemalloc" : "install libjemalloc-dev for them") + ")"
            }
            let error = (Double(counted) - Double(expected)) / Double(expected) * 100
            return
                """
                allocator \(allocator): expected \(expected) allocations, counted \(counted) \
                (\(String(format: "%+.3f", error))%) — \(passed ? "within" : "OUTSIDE") 1%
                """
        }
    }

    private final class Probe {
        var value = 0
    }

    /// Allocates `objectsPerThread` objects on each of `threads` threads at once and counts them.
    public static func run(threads: Int, objectsPerThread: Int) -> Result {
        let group = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)
        let counted = Box<UInt64?>(nil)
        // Each thread reserves its storage first, so the only allocations between the two
        // readings are the probes themselves.
        for _ in 0..<threads {
            group.enter()
            Thread {
                var kept: [AnyObject] = []
                kept.reserveCapacity(objectsPerThread)
                ready.signal()
                go.wait()
                for _ in 0..<objectsPerThread { kept.append(Probe()) }
                group.leave()
                // Kept alive until every thread has been counted.
                release.wait()
                withExtendedLifetime(kept) {}
            }.start()
        }
        for _ in 0..<threads { ready.wait() }
        let before = Allocator.totalRequests()
        for _ in 0..<threads { go.signal() }
        group.wait()
        if let before, let after = Allocator.totalRequests() { counted.value = after &- before }
        for _ in 0..<threads { release.signal() }
        return Result(allocator: Allocator.name, expected: threads * objectsPerThread, counted: counted.value)
    }
}
