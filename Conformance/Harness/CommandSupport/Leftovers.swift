import Foundation
import SchedulerProbes

/// Work a rule left running in this process: threads, other than the caller's, that ran or
/// waited for a core through most of a 100 ms watch and had processor time in it (a runaway
/// task, a thread spinning in a subject that a failed rule gave up on). Most looks, not all:
/// a spinning thread is blocked now and then where a runtime takes a lock for it
/// (ThreadSanitizer's, in a loaded test run). Processor time too: on a loaded machine a
/// thread woken for a moment's work can wait for a core through the whole watch, runnable at
/// every look, and it never runs long enough to be charged a tick. A worker that finds some
/// after a rule says so in that rule's result and leaves the next rules to a fresh worker, so
/// one rule's runaway cannot decide another's verdict. Linux only (`/proc/self/task`);
/// elsewhere nothing is found.
package enum Leftovers {
    /// The names of the threads found busy, with their kernel IDs.
    package static func busyThreads() -> [String] {
        #if os(Linux)
            let caller = CorePinning.currentThreadID
            // Most rules leave nothing: no thread busy over 2 ms settles it. Most suspects
            // ran for a moment after the rule and are idle 5 ms later; only a real one costs
            // the watch below (50 ms a suspect), not every rule whose pool thread was finishing.
            var suspects = busy(allThreads().subtracting(caller.map { [$0] } ?? []), over: 2_000)
            guard !suspects.isEmpty else { return [] }
            suspects = busy(suspects, over: 5_000)
            guard !suspects.isEmpty else { return [] }
            let ticksBefore = ticks(of: suspects)
            // A suspect idle at more looks than a busy thread may miss is dropped as soon as it
            // is, and the watch ends when none is left: a thread that ran for a moment after
            // the rule (most suspects, under the sanitizer nearly every rule has one) costs
            // 50 ms, not the whole watch. Those left were running at the other looks.
            var missed: [Int32: Int] = [:]
            for _ in 0..<looks where !suspects.isEmpty {
                usleep(10_000)
                for thread in suspects where CorePinning.isRunning(thread) != true {
                    missed[thread, default: 0] += 1
                    if missed[thread, default: 0] > mayMiss { suspects.remove(thread) }
                }
            }
            let ticksAfter = ticks(of: suspects)
            return suspects.filter { ticksAfter[$0, default: 0] > ticksBefore[$0, default: Int.max] }
                .sorted().map { "\(name(of: $0)) (\($0))" }
        #else
            return []
        #endif
    }

    /// How many times a suspect is looked at, 10 ms apart.
    private static let looks = 10
    /// At how many of those looks a busy thread may be idle: it runs at six in ten.
    private static let mayMiss = 4

    #if os(Linux)
        /// Those of `threads` busy over the next `microseconds`: in state R at its end, or on a
        /// core or waiting for one for a quarter of it. Both tests, since the kernel adds a
        /// thread's wait for a core to its count only once it runs, and a runtime blocks a
        /// spinning thread for moments (the sanitizer's: one look at the state alone caught a
        /// spinning thread blocked about one time in ten).
        private static func busy(_ threads: Set<Int32>, over microseconds: UInt32) -> Set<Int32> {
            let before = activeTimes(of: threads)
            usleep(microseconds)
            let after = activeTimes(of: threads)
            return threads.filter { thread in
                if CorePinning.isRunning(thread) == true { return true }
                guard let before = before[thread], let after = after[thread] else { return false }
                return after - before >= Int64(microseconds) * 250
            }
        }

        /// The IDs of this process's threads.
        private static func allThreads() -> Set<Int32> {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return Set(tasks.compactMap(Int32.init))
        }

        /// The nanoseconds each of `threads` has been on a core or waiting for one.
        private static func activeTimes(of threads: Set<Int32>) -> [Int32: Int64] {
            Dictionary(uniqueKeysWithValues: threads.compactMap { id in CorePinning.activeTime(id).map { (id, $0) } })
        }

        /// The processor time each of `threads` has had, in clock ticks.
        private static func ticks(of threads: Set<Int32>) -> [Int32: Int] {
            Dictionary(
                uniqueKeysWithValues: threads.compactMap { id in CorePinning.threadState(id).map { (id, $0.ticks) } })
        }

        private static func name(of thread: Int32) -> String {
            let comm = try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "thread"
        }
    #endif
}
