import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Pins threads to cores, where the platform allows it.
package enum CorePinning {
    /// Names the calling thread, for Foundation and for the kernel (`/proc`, gdb) at once.
    /// Foundation alone may not reach the kernel: a `Thread` that names itself before the
    /// thread that started it has recorded its handle (a loaded machine) keeps the name only
    /// in Foundation, and a thread dump would show its creator's.
    package static func nameCurrentThread(_ name: String) {
        Thread.current.name = name
        _ = core_affinity_name_current_thread(name)
    }

    /// Whether thread `id` of this process is on a core or waiting for one (the kernel's
    /// state `R` in `/proc/self/task/<id>/stat`); nil where that cannot be read (not Linux,
    /// or the thread is gone).
    package static func isRunning(_ id: Int32) -> Bool? {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // The name before the state is in parentheses and may hold any character.
        return stat[stat.index(after: close)...].split(separator: " ").first == "R"
    }

    /// Nanoseconds thread `id` of this process has been on a core (`running`) and ready but
    /// waiting for one (`waiting`) over its life; nil where that cannot be read (not Linux, or
    /// the thread is gone). A busy thread's sum grows at the clock's rate however loaded the
    /// machine is; a blocked thread's not at all.
    package static func times(_ id: Int32) -> (running: Int64, waiting: Int64)? {
        var running: Int64 = 0
        var waiting: Int64 = 0
        return core_affinity_thread_times(Int(id), &running, &waiting) == 0 ? (running, waiting) : nil
    }

    /// Nanoseconds thread `id` of this process has been on a core or waiting for one, over
    /// its life (``times(_:)`` summed); nil where that cannot be read.
    package static func activeTime(_ id: Int32) -> Int64? {
        times(id).map { $0.running + $0.waiting }
    }

    /// The calling thread's kernel ID (the LWP that gdb and `/proc` name), or nil where
    /// there is none.
    package static var currentThreadID: Int32? {
        let id = core_affinity_thread_id()
        return id >= 0 ? Int32(clamping: id) : nil
    }

    /// Pins the calling thread to the `index`-th (modulo their number) of the cores this
    /// process may run on. Does nothing where affinity cannot be set (not Linux, or the call
    /// is refused): the threads are then placed by the kernel as usual.
    package static func pinCurrentThread(toCore index: Int) {
        _ = core_affinity_pin_current_thread(Int32(clamping: index))
    }

    /// The core the calling thread runs on, or nil where unknown.
    package static var currentCore: Int? {
        let core = core_affinity_current_core()
        return core >= 0 ? Int(core) : nil
    }

    /// Keeps the calling thread off `core` (another thread it must run beside is there), and
    /// says whether it moved. Does nothing where that cannot be done.
    package static func moveCurrentThread(offCore core: Int) -> Bool {
        core_affinity_move_current_thread_off(Int32(clamping: core)) == 0
    }

    /// Lets the calling thread run on any of the process's cores again.
    package static func unpinCurrentThread() {
        _ = core_affinity_unpin_current_thread()
    }
}
