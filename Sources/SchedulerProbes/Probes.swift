import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

// Small measuring tools shared by the rules and the stress scenarios.

/// Watches how far below its first sample, per thread, the stack has grown.
public final class StackMeter: Sendable {
    /// Growth that no loop-based implementation reaches and every recursive one does
    /// long before it overflows a 512 KiB stack.
    public static let limit: UInt = 256 * 1024

    private let state = Box<(baselines: [UInt: UInt], growth: UInt)>(([:], 0))

    /// A meter with no samples.
    public init() {}

    /// Records the stack position of the calling thread.
    public func sample() {
        let address = ThreadProbe.stackAddress()
        let thread = ThreadProbe.id
        state.update { state in
            let baseline = state.baselines[thread] ?? address
            state.baselines[thread] = max(baseline, address)
            if baseline > address { state.growth = max(state.growth, baseline - address) }
        }
    }

    /// The deepest growth seen on any thread, in bytes.
    public var growth: UInt { state.value.growth }
    /// Whether the growth reached ``limit``.
    public var exceeded: Bool { growth >= Self.limit }
}

/// Counts live tokens: each token decrements the count when it is freed.
public final class LiveCounter: Sendable {
    private let live = Atomic<Int>(0)
    /// Signalled whenever the count drops to zero, so a wait needs no polling.
    private let reachedZero = DispatchSemaphore(value: 0)

    private final class Token: Sendable {
        let counter: LiveCounter
        init(_ counter: LiveCounter) {
            self.counter = counter
            counter.live.wrappingAdd(1, ordering: .relaxed)
        }
        deinit {
            if counter.live.wrappingSubtract(1, ordering: .releasing).newValue == 0 { counter.reachedZero.signal() }
        }
    }

    /// A counter at zero.
    public init() {}

    /// A new live object; the count drops when it is freed.
    public func token() -> any AnyObject & Sendable { Token(self) }
    /// How many tokens are alive.
    public var count: Int { live.load(ordering: .acquiring) }

    /// Waits until no token is alive, up to `bound`; returns whether that happened. A
    /// scheduler may free a finished action a moment after running it (a task's closure
    /// goes when the task ends, after the action returned), so releases are awaited.
    public func waitForNone(within bound: Duration) -> Bool {
        let deadline = DispatchTime.now() + bound.dispatchInterval
        while count > 0 {
            if reachedZero.wait(timeout: deadline) == .timedOut { return count == 0 }
        }
        return true
    }
}

/// A small, seedable generator so that random cases repeat exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Busy-waits about `iterations` nanoseconds (clock-bound, so an optimiser cannot remove
/// it), to widen race windows.
public func spin(_ iterations: Int) {
    spin(.nanoseconds(iterations))
}

/// Spins `steps` iterations of a loop the optimiser keeps (about a cycle each): a pause finer
/// than a clock read. (A loop calling an empty function is not enough: an optimised build
/// drops calls it can see do nothing.)
package func busySteps(_ steps: Int) {
    core_affinity_busy_steps(steps)
}

/// Busy-waits until `condition` holds or `bound` passed, and says whether it holds. It spins
/// flat out for the first 200 µs, so two threads on two cores meet within a microsecond or
/// so, and then yields between polls, so a thread it waits for on the same core gets to run.
package func spinWait(upTo bound: Duration, until condition: () -> Bool) -> Bool {
    let start = ContinuousClock.now
    let eager = start + .microseconds(200)
    let deadline = start + bound
    while !condition() {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        if now >= eager { sched_yield() }
    }
    return true
}

/// Busy-waits `duration` by the monotonic clock, without giving up the thread: for timing
/// that a sleep's wake-up latency would blur.
@inline(never)
public func spin(_ duration: Duration) {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end {}
}

/// Keeps `value` alive and observed, so the optimiser cannot drop it.
@inline(never)
public func blackHole<T>(_ value: T) {}

/// What one thread saw of the machine while it watched the clock flat out from another core:
/// the longest pause between two of its reads, and whether the kernel switched it out. On a
/// virtual machine the host pauses every virtual core at once, thousands of times a second,
/// for 5 to 60 µs, and the guest counts most of it nowhere (no context switch, and for three
/// gaps in four of a spinning thread on the CI machine no steal time either: the paused
/// thread's CPU time keeps running): a thread watching from the other core sees such a pause
/// as a gap in its reads. Measured on the 2-core CI machine, 19 of 20 pauses of one
/// core were also seen from the other.
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
        threadState(id)?.running
    }

    /// Nanoseconds thread `id` of this process has been on a core or waiting for one, over
    /// its life; nil where that cannot be read (not Linux, or the thread is gone). A busy
    /// thread's count grows at the clock's rate however loaded the machine is.
    package static func activeTime(_ id: Int32) -> Int64? {
        let active = core_affinity_thread_active_time(Int(id))
        return active >= 0 ? active : nil
    }

    /// Thread `id`'s kernel state (`R`: on a core or waiting for one) and the processor time
    /// it has had, in the kernel's clock ticks (user and system, 10 ms each on Linux); nil
    /// where that cannot be read (not Linux, or the thread is gone).
    package static func threadState(_ id: Int32) -> (running: Bool, ticks: Int)? {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // The name before the fields is in parentheses and may hold any character: the state
        // is the first field after it, user and system time the 12th and 13th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return (fields[0] == "R", user + system)
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

/// The C allocator's count of bytes in use, for rules that weigh what threads leave behind.
public enum HeapMeter {
    /// The bytes the allocator has handed out and not had back, over every thread's arena;
    /// nil where it does not tell, or where its count does not move when this thread allocates
    /// (a sanitizer's allocator stands in for glibc's there).
    public static func bytesInUse() -> Int? {
        isMeasurable ? current() : nil
    }

    private static func current() -> Int? {
        let bytes = core_affinity_heap_bytes_in_use()
        return bytes >= 0 ? bytes : nil
    }

    /// Whether 1,000 blocks of 64 bytes allocated here show in the count: only then does
    /// a count that did not grow mean that nothing was kept.
    private static let isMeasurable: Bool = {
        guard let before = current() else { return false }
        let blocks = (0..<1_000).map { _ in malloc(64) }
        defer {
            for block in blocks { free(block) }
        }
        guard let after = current() else { return false }
        // Used after the reading, so the optimiser cannot drop the allocations.
        for block in blocks { blackHole(block) }
        return after - before >= 64_000
    }()
}

/// Another thread's stack, read without stopping the process: the thread takes a signal and
/// records its own return addresses. For a hang's diagnosis where no debugger may attach (a
/// test process runs other tests beside the rule).
package enum StackSample {
    /// The calling thread's kernel ID, once its stack may be sampled: what a thread that may
    /// get stuck in a subject records for the hang's diagnosis. Nil where there is no ID.
    package static var sampleableCurrentThreadID: Int32? {
        _ = core_affinity_allow_stack_sampling()
        return CorePinning.currentThreadID
    }

    /// The mangled names of the functions on kernel thread `id`'s stack, innermost first
    /// (an empty string where an address has no symbol); nil where the thread did not answer
    /// within `timeout` (gone, not made sampleable by ``sampleableCurrentThreadID``, or a
    /// sanitizer holding the signal back) or sampling is not supported here.
    package static func symbols(ofThread id: Int32, within timeout: Duration = .seconds(1)) -> [String]? {
        #if SCHEDULERS_TSAN
            // The sanitizer defers a signal to a thread blocked in a lock until it wakes:
            // every sample of a stuck thread would time out.
            return nil
        #else
            var frames = [UnsafeMutableRawPointer?](repeating: nil, count: 128)
            let milliseconds = Int32(clamping: timeout.components.seconds * 1_000 + 1)
            let count = core_affinity_sample_stack(Int(id), &frames, Int32(frames.count), milliseconds)
            guard count > 0 else { return nil }
            var name = [CChar](repeating: 0, count: 4_096)
            return frames.prefix(Int(count)).map { address in
                guard let address, core_affinity_symbol_name(address, &name, name.count) == 1 else { return "" }
                return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
        #endif
    }
}

/// A region a profiler counts on its own: `body` runs inside a C function of that name, which
/// callgrind can be told to zero its counts before and dump them after (`--zero-before`,
/// `--dump-after`), so a program's start-up and tear-down stay out of the count.
package enum MeasuredRegion {
    /// The C function the region runs in.
    package static let symbol = "core_affinity_measured_region"

    /// Runs `body` inside the region.
    package static func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            let box = Unmanaged.passRetained(Box(body))
            defer { box.release() }
            core_affinity_measured_region(
                { context in Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue().body() }, box.toOpaque())
        }
    }

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
