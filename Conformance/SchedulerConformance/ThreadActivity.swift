import Foundation
import SchedulerDiagnostics
import SchedulerProbes

/// Whether a stuck thread is blocked or spinning, read from the kernel.
extension HangDiagnosis {
    /// What thread `id` of this process is doing, from the kernel's view; nil where that
    /// cannot be read. See ``activities(of:)``.
    static func activity(of id: Int32) -> String? { activities(of: [id])[id] }

    /// What ``activities(of:)`` says of a thread on a core for most of its window.
    static let spinningActivity = "running: spinning on a core"

    /// How a report introduces the frame a thread is in: "a runaway in" one the kernel saw
    /// spinning (a loop or a recursion that does not end), else "stuck in".
    static func placeWord(activity: String?) -> String {
        activity == spinningActivity ? "a runaway in" : "stuck in"
    }

    /// What each of `ids` is doing, from the kernel's view over the next 20 ms: "running:
    /// spinning on a core" when it was on a core or waiting for one for at least half of it,
    /// else "blocked". A window, not one look: a thread blocked in a lock is runnable for a
    /// moment whenever something wakes it (a debugger detaching, a spurious futex wake). Two
    /// readings, either enough: the time the kernel charged the thread, and its state sampled
    /// every 2 ms, since a spinning thread that waits for a core the whole window (a loaded
    /// machine) is charged that wait only once it runs again, but is runnable at every look.
    static func activities(of ids: [Int32]) -> [Int32: String] {
        let window: Int64 = 20_000_000
        let looks = 10
        let before = Dictionary(ids.compactMap { id in CorePinning.activeTime(id).map { (id, $0) } }) { a, _ in a }
        var runnable: [Int32: Int] = [:]
        var read: [Int32: Int] = [:]
        for _ in 0..<looks {
            usleep(UInt32(window / 1_000) / UInt32(looks))
            for id in ids {
                guard let running = CorePinning.isRunning(id) else { continue }
                read[id, default: 0] += 1
                if running { runnable[id, default: 0] += 1 }
            }
        }
        var found: [Int32: String] = [:]
        for id in ids {
            let charged = before[id].flatMap { start in CorePinning.activeTime(id).map { $0 - start >= window / 2 } }
            let seen = read[id].map { runnable[id, default: 0] * 2 >= $0 }
            guard charged != nil || seen != nil else { continue }
            found[id] = charged == true || seen == true ? spinningActivity : "blocked"
        }
        return found
    }
}
