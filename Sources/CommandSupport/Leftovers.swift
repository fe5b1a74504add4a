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
            // Most rules leave nothing: three quick looks that find no thread running settle it
            // (4 ms), and only a suspect is watched. One look is not enough: under the sanitizer
            // a spinning thread was caught blocked at it about one time in ten.
            var suspects: Set<Int32> = []
            for look in 0..<3 where suspects.isEmpty {
                if look > 0 { usleep(2_000) }
                suspects = runningThreads().subtracting(caller.map { [$0] } ?? [])
            }
            guard !suspects.isEmpty else { return [] }
            // Most suspects ran for a moment after the rule and are idle now: one that 5 ms
            // later is neither running nor waiting for a core, and was on a core or waiting
            // for one less than a quarter of that time, drops out at once. Only a real one
            // costs the watch below, not every rule whose pool thread was finishing (the
            // watch's 50 ms a suspect were most of the 6 s `make conformance` spent between
            // its rules, 2.5 s now). Both tests, since the kernel adds a thread's wait for a
            // core to its count only once it runs, and a runtime blocks a spinning thread for
            // moments (the sanitizer's).
            let activeBefore = activeTimes(of: suspects)
            usleep(5_000)
            let activeAfter = activeTimes(of: suspects)
            suspects = suspects.filter { thread in
                if CorePinning.isRunning(thread) == true { return true }
                guard let before = activeBefore[thread], let after = activeAfter[thread] else { return false }
                return after - before >= 1_250_000
            }
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
        /// The IDs of this process's threads in state R (running or runnable).
        private static func runningThreads() -> Set<Int32> {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return Set(tasks.compactMap(Int32.init).filter { CorePinning.isRunning($0) == true })
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
