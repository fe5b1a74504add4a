import Foundation
import SchedulerProbes

/// Work a rule left running in this process: threads, other than the caller's, that the
/// kernel found running or runnable at three looks 10 ms apart (a runaway task, a thread
/// spinning in a subject that a failed rule gave up on). A worker that finds some after a
/// rule says so in that rule's result and leaves the next rules to a fresh worker, so one
/// rule's runaway cannot decide another's verdict. Linux only (`/proc/self/task`);
/// elsewhere nothing is found.
package enum Leftovers {
    /// The names of the threads busy at every look, with their kernel IDs.
    package static func busyThreads() -> [String] {
        #if os(Linux)
            var busy = runningThreads().subtracting(CorePinning.currentThreadID.map { [$0] } ?? [])
            // Most rules leave nothing: one look settles it, and only a suspect costs 20 ms.
            for _ in 0..<2 where !busy.isEmpty {
                usleep(10_000)
                busy.formIntersection(runningThreads())
            }
            return busy.sorted().map { "\(name(of: $0)) (\($0))" }
        #else
            return []
        #endif
    }

    #if os(Linux)
        /// The IDs of this process's threads in state R (running or runnable).
        private static func runningThreads() -> Set<Int32> {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return Set(tasks.compactMap(Int32.init).filter { CorePinning.isRunning($0) == true })
        }

        private static func name(of thread: Int32) -> String {
            let comm = try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "thread"
        }
    #endif
}
