import Dispatch
import SchedulerProbes
import Schedulers

/// The time each thread that ran the suite's code during a measurement had waited for a core
/// (``CoreWait``), read at each tick's start and as its code ended, and every thread's, read
/// as the suite's timer fires at each grid point: what says whether a late tick's thread was
/// kept off a core.
final class CoreWaits: Sendable {
    private let readings = Lock<[(at: UInt64, wait: CoreWait, onSubject: Bool)]>([])
    private let starts = Lock<[Int: CoreWait]>([:])
    private let snapshots = Lock<[(at: UInt64, read: UInt64, waits: [Int: Int64])]>([])

    /// Reads the calling thread as tick `tick` starts.
    func started(tick: Int) {
        guard let wait = CoreWait.now() else { return }
        starts.withLock { $0[tick] = wait }
    }

    /// Reads the calling thread as the suite's code on it ends, at `at`: `onSubject` when that
    /// code ran on the subject (a tick's action, or a plain action handed to it), so that the
    /// subject could run nothing else on this thread until then.
    func record(at: UInt64, onSubject: Bool = false) {
        guard let wait = CoreWait.now() else { return }
        readings.withLock { $0.append((at, wait, onSubject)) }
    }

    /// Reads every thread of the process from the calling one, as the suite's timer fires at a
    /// grid point (at `fired`): a tick that comes late on a thread that had not run the suite's
    /// code before (a pool thread) still has a reading from when it was due. When the reading
    /// ended is kept too: a thread read late in it may have waited before it was read.
    func snapshot(fired: UInt64) {
        let waits = CoreWait.everyThread()
        let read = uptimeNanoseconds()
        guard !waits.isEmpty else { return }
        snapshots.withLock {
            $0.append((fired, read, Dictionary(waits.map { ($0.thread, $0.nanoseconds) }, uniquingKeysWith: max)))
        }
    }

    /// A late tick's thread as its readings show it: how long it waited for a core from its
    /// baseline to the tick's start, and how long after the due time that baseline may have
    /// been read (a snapshot of every thread takes a while, longer when its own thread loses
    /// its core, and a wait before the thread's turn in it counts in the baseline).
    struct Waited {
        let waited: UInt64
        let unread: UInt64
        /// The most the machine can have held the thread back since the due time.
        var bound: UInt64 { waited + unread }
    }

    /// The latest time before `before` at which the thread of tick `tick` ran the suite's code
    /// on the subject, and how long it waited for a core from then to the tick's start: a
    /// tick that the subject's stall (seen by a plain action on this thread) or the tick
    /// before it held back, and that then waited for a core, is late by both. Nil when the
    /// thread ran none.
    func heldUntil(tick: Int, before: UInt64) -> (at: UInt64, waited: UInt64)? {
        guard let start = starts.withLock({ $0[tick] }),
            let held = readings.withLock({
                $0.last { $0.onSubject && $0.at < before && $0.wait.thread == start.thread }
            })
        else { return nil }
        return (held.at, UInt64(max(start.nanoseconds - held.wait.nanoseconds, 0)))
    }

    /// How long the thread of tick `tick` waited for a core, from its latest reading at or
    /// before `due` (the suite's code ending on it, or a snapshot of every thread taken as the
    /// suite's timer fired) to the tick's start; nil when there was none (or the platform
    /// does not count). Counted from when the tick was due, not from a reading taken while it
    /// was already held back: a snapshot in the middle of a stall would hide its first part,
    /// and so the time a snapshot took to read is kept as `unread`.
    func waited(tick: Int, since due: UInt64) -> Waited? {
        guard let start = starts.withLock({ $0[tick] }) else { return nil }
        let own = readings.withLock { $0.last { $0.at <= due && $0.wait.thread == start.thread } }
        let seen = snapshots.withLock { $0.last { $0.at <= due && $0.waits[start.thread] != nil } }
        let baseline: (wait: Int64, read: UInt64)? =
            if let own, own.at >= seen?.at ?? 0 {
                (own.wait.nanoseconds, own.at)
            } else {
                seen.flatMap { seen in seen.waits[start.thread].map { ($0, seen.read) } }
            }
        return baseline.map {
            Waited(waited: UInt64(max(start.nanoseconds - $0.wait, 0)), unread: max($0.read, due) - due)
        }
    }
}
