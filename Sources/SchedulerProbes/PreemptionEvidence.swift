import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// What one thread saw of the machine while it watched the clock flat out from another core:
/// the longest pause between two of its reads, and whether the kernel switched it out. On a
/// virtual machine the host pauses every virtual core at once, thousands of times a second,
/// for 5 to 60 µs, and the guest counts most of it nowhere (no context switch, and for three
/// gaps in four of a spinning thread on the CI machine no steal time either: the paused
/// thread's CPU time keeps running): a thread watching from the other core sees nearly
/// every such pause as a gap in its reads.
public struct PauseWatch: Sendable {
    /// When the watch began.
    public let from: ContinuousClock.Instant
    /// The watch's last read of the clock, taken after it saw what it waited for.
    public let until: ContinuousClock.Instant
    /// The longest gap between two consecutive reads of the clock.
    public let longestGap: Duration
    /// The watching thread itself lost its core (so its gaps prove nothing about the machine).
    public let switchedOut: Bool

    /// Watches the clock until `done()` holds or `bound` passed.
    public static func watch(upTo bound: Duration, until done: () -> Bool) -> PauseWatch {
        let mark = ThreadMark.now()
        let from = ContinuousClock.now
        var last = from
        var longest = Duration.zero
        // The clock is read after each look at `done()`, so the watch ends after what it
        // waited for had happened, and covers it.
        while true {
            let finished = done()
            let now = ContinuousClock.now
            longest = max(longest, last.duration(to: now))
            last = now
            if finished || from.duration(to: now) >= bound { break }
        }
        return PauseWatch(
            from: from, until: last, longestGap: longest,
            switchedOut: ThreadMark.now()?.evidence(since: mark) != .notPreempted)
    }

    /// Whether the watch covered `instant` with evidence: it ran unswitched up to then.
    public func covers(_ instant: ContinuousClock.Instant) -> Bool {
        !switchedOut && instant <= until
    }
}

/// A point in one thread's run: which kernel thread it was, how many context switches
/// (involuntary, and voluntary: a lock, a page fault) it had made, and its processor time
/// against the monotonic clock. Two marks of the same thread with the same count, between
/// which the clock ran no further than the thread's processor time, bracket a stretch in
/// which the thread kept its core: the host of a virtual machine takes a core without the
/// guest switching anything, and the guest leaves that time out of the thread's. Rules that
/// judge a race by time excuse a late event only with such evidence, never by a tolerated
/// rate. The marks must bracket exactly the stretch judged, on the thread that ran it: a
/// thread of a shared pool may run other work between two of the suite's actions.
public struct ThreadMark: Sendable, Equatable {
    /// What two marks say about the stretch between them.
    public enum Evidence: Sendable, Equatable {
        /// Different threads, or a platform that does not count switches per thread.
        case unknown
        /// The thread kept its core the whole time.
        case notPreempted
        /// The thread lost its core at least once.
        case preempted
    }

    /// The kernel's ID of the thread.
    public let thread: Int
    /// The thread's context switches so far.
    public let switches: Int
    /// The monotonic clock and the thread's processor time when the mark was taken, in
    /// nanoseconds.
    let monotonic: Int64
    let running: Int64

    /// How far the clock may run ahead of the thread's processor time on a thread that kept
    /// its core: the two are read one after the other (about 0.3 µs apart, measured), and
    /// the host's thefts judged are 5 µs and longer.
    static let clockSkew: Int64 = 2_000

    /// The calling thread's mark, or nil where the platform does not count switches per thread.
    public static func now() -> ThreadMark? {
        let switches = core_affinity_context_switches()
        var monotonic: Int64 = 0
        var running: Int64 = 0
        let thread = core_affinity_thread_id()
        guard switches >= 0, thread >= 0, core_affinity_thread_clocks(&monotonic, &running) == 0 else { return nil }
        return ThreadMark(thread: thread, switches: switches, monotonic: monotonic, running: running)
    }

    /// What this mark, taken later, says about the stretch since `earlier`.
    public func evidence(since earlier: ThreadMark?) -> Evidence {
        guard let earlier, earlier.thread == thread else { return .unknown }
        let lost = (monotonic - earlier.monotonic) - (running - earlier.running)
        return earlier.switches == switches && lost <= Self.clockSkew ? .notPreempted : .preempted
    }
}

/// How many interrupts each core had taken when it was read (the kernel's
/// `/proc/interrupts`). A thread on a core that takes an interrupt stops while the kernel
/// handles it, and neither its context switches nor its processor time show that (the
/// handler's time is charged to it); on the CI machine, a nested virtual machine, every timer
/// interrupt stopped a spinning thread for 20 to 100 µs. Two readings say whether a core took
/// any in between; reading costs about 40 µs, so it brackets a trial, not a step of one.
public struct CoreInterrupts: Sendable, Equatable {
    /// Interrupts taken so far, indexed by core number.
    public let counts: [Int64]

    /// Every core's count now, or nil where it cannot be read.
    public static func now() -> CoreInterrupts? {
        var counts = [Int64](repeating: 0, count: 1_024)
        let cores = counts.withUnsafeMutableBufferPointer { core_affinity_interrupts($0.baseAddress, Int32($0.count)) }
        guard cores > 0 else { return nil }
        return CoreInterrupts(counts: Array(counts.prefix(Int(cores))))
    }

    /// Whether `core` took an interrupt between `earlier` and this reading; nil when either
    /// does not know the core.
    public func interrupted(_ core: Int, since earlier: CoreInterrupts) -> Bool? {
        guard counts.indices.contains(core), earlier.counts.indices.contains(core) else { return nil }
        return counts[core] != earlier.counts[core]
    }
}

/// How long one thread has been ready to run but kept off a core, over its life, as the
/// kernel counts it. Two readings on the same thread bound the time the machine held it back
/// in between: a late event whose thread waited that long for a core is the machine's doing,
/// and one whose thread did not wait is the code's. Only readings of the same thread compare.
public struct CoreWait: Sendable, Equatable {
    /// The kernel's ID of the thread.
    public let thread: Int
    /// Nanoseconds the thread has waited for a core so far.
    public let nanoseconds: Int64

    /// The calling thread's reading, or nil where the platform does not count the wait.
    public static func now() -> CoreWait? {
        let waited = core_affinity_run_delay()
        let thread = core_affinity_thread_id()
        guard waited >= 0, thread >= 0 else { return nil }
        return CoreWait(thread: thread, nanoseconds: waited)
    }

    /// Every thread of this process, read from the calling one: a baseline for threads that
    /// have not read their own yet (a pool thread about to run the code judged). Empty where
    /// the platform does not count the wait.
    public static func everyThread() -> [CoreWait] {
        // However many threads there are: a reading that left some out was no baseline for
        // them (a test process past 512 threads lost its late ticks' witnesses).
        func list(_ ids: inout [Int]) -> Int {
            Int(ids.withUnsafeMutableBufferPointer { core_affinity_thread_ids($0.baseAddress, Int32($0.count)) })
        }
        var ids = [Int](repeating: 0, count: 512)
        var count = list(&ids)
        while count > ids.count {
            ids = [Int](repeating: 0, count: count * 2)
            count = list(&ids)
        }
        return ids.prefix(max(0, count)).compactMap { thread in
            let waited = core_affinity_thread_run_delay(thread)
            return waited >= 0 ? CoreWait(thread: thread, nanoseconds: waited) : nil
        }
    }

    /// Nanoseconds this thread waited for a core since `earlier`, or nil when `earlier` was
    /// read on another thread.
    public func since(_ earlier: CoreWait) -> UInt64? {
        guard earlier.thread == thread else { return nil }
        return UInt64(max(nanoseconds - earlier.nanoseconds, 0))
    }
}
