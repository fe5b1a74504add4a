import Foundation
import SchedulerProbes

/// Work a rule left running in this process: threads, other than the caller's, that stayed
/// ready to run through a watch of at least 100 ms and ran on a core for 10 ms of it (a
/// runaway task, a thread spinning in a subject that a failed rule gave up on). A worker that
/// finds some after a rule says so in that rule's result and leaves the next rules to a fresh
/// worker, so one rule's runaway cannot decide another's verdict. Linux only
/// (`/proc/self/task`); elsewhere nothing is found.
///
/// The verdict on each thread rests on what the kernel counted for it, not on a share of
/// looks: a thread that went to sleep is dropped once it has slept 40 % of the watch, and one
/// that keeps wanting a core is watched until it has had 10 ms of one, however many threads it
/// shares the cores with (up to 2 s, after which wanting a core all along is evidence enough).
package enum Leftovers {
    /// The names of the threads found busy, with their kernel IDs.
    package static func busyThreads() -> [String] {
        #if os(Linux)
            let caller = CorePinning.currentThreadID
            // Most rules leave nothing: no thread busy over 2 ms settles it. Most suspects
            // ran for a moment after the rule and are idle 5 ms later; only a real one costs
            // the watch below, not every rule whose pool thread was finishing.
            // Listed twice: a list read while threads come and go may miss one, and a second is cheap.
            var suspects = busy(allThreads().union(allThreads()).subtracting(caller.map { [$0] } ?? []), over: 2_000)
            guard !suspects.isEmpty else { return [] }
            suspects = busy(suspects, over: 5_000)
            guard !suspects.isEmpty else { return [] }
            return watch(suspects).sorted().map { "\(name(of: $0)) (\($0))" }
        #else
            return []
        #endif
    }

    /// The shortest watch, the processor time that shows a thread working, and the longest watch.
    private static let window: Int64 = 100_000_000
    private static let workedFor: Int64 = 10_000_000
    private static let deadline: Int64 = 2_000_000_000

    #if os(Linux)
        /// Those of `suspects` that work through the watch: each is looked at every 10 ms until
        /// it has either slept too long to be busy or run long enough while wanting a core.
        private static func watch(_ suspects: Set<Int32>) -> [Int32] {
            let start = DispatchTime.now().uptimeNanoseconds
            // Each thread's times when first read, and when (a thread read at a bad moment is
            // watched from the look that could read it).
            var first: [Int32: (times: (running: Int64, waiting: Int64), at: Int64)] = [:]
            for id in suspects { first[id] = CorePinning.times(id).map { ($0, 0) } }
            var pending = suspects
            var found: [Int32] = []
            while !pending.isEmpty {
                usleep(10_000)
                let elapsed = Int64(DispatchTime.now().uptimeNanoseconds - start)
                for thread in pending {
                    guard let before = first[thread], let times = CorePinning.times(thread),
                        let ready = CorePinning.isRunning(thread)
                    else {
                        // Gone, or read at a bad moment: then a later look decides.
                        if !isListed(thread) || elapsed >= deadline {
                            pending.remove(thread)
                        } else if first[thread] == nil {
                            first[thread] = CorePinning.times(thread).map { ($0, elapsed) }
                        }
                        continue
                    }
                    let watched = elapsed - before.at
                    let ran = times.running - before.times.running
                    // The kernel adds a wait for a core to the count only once the wait ends, so
                    // a ready thread's count lags: its sleep is read only while it sleeps.
                    let slept = watched - (ran + times.waiting - before.times.waiting)
                    if !ready, slept > max(watched, window) * 4 / 10 {
                        pending.remove(thread)
                    } else if watched >= window, ran >= workedFor {
                        found.append(thread)
                        pending.remove(thread)
                    } else if elapsed >= deadline {
                        if ready { found.append(thread) }
                        pending.remove(thread)
                    }
                }
            }
            return found
        }

        /// Those of `threads` busy over the next `microseconds`: in state R at any of three looks
        /// (its start, middle and end), or on a core or waiting for one for a quarter of it. Both
        /// tests, since the kernel adds a thread's wait for a core to its count only once it
        /// runs, and its time on a core only at a tick or a switch; and three looks, since a
        /// runtime blocks a spinning thread for moments (the sanitizer's: one look at the state
        /// alone caught a spinning thread blocked about one time in ten). A thread whose state or
        /// times could not be read but that is still listed is kept: unknown is not idle.
        private static func busy(_ threads: Set<Int32>, over microseconds: UInt32) -> Set<Int32> {
            let before = activeTimes(of: threads)
            var seenReady = threads.filter(mayBeReady)
            usleep(microseconds / 2)
            seenReady.formUnion(threads.subtracting(seenReady).filter(mayBeReady))
            usleep(microseconds - microseconds / 2)
            let after = activeTimes(of: threads)
            return threads.filter { thread in
                if seenReady.contains(thread) || mayBeReady(thread) { return true }
                guard let before = before[thread], let after = after[thread] else { return isListed(thread) }
                return after - before >= Int64(microseconds) * 250
            }
        }

        /// Whether `thread` is in state R, or its state could not be read although it is
        /// still listed.
        private static func mayBeReady(_ thread: Int32) -> Bool {
            CorePinning.isRunning(thread) ?? isListed(thread)
        }

        /// Whether `thread` is still one of this process's threads.
        private static func isListed(_ thread: Int32) -> Bool {
            access("/proc/self/task/\(thread)", F_OK) == 0
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

        private static func name(of thread: Int32) -> String {
            let comm = try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "thread"
        }
    #endif
}
