import Dispatch
import Foundation
import Schedulers

/// Threads made for a probe, released together so that their calls can overlap.
public enum Threads {
    /// Runs `body(index)` on `count` new threads released together, and waits for all of
    /// them; false when they had not all finished within `bound`.
    ///
    /// - Parameters:
    ///   - pinned: pin thread `index` to the `index`-th core this process may use (round
    ///     robin; Linux only), so that on a loaded machine the kernel cannot keep all of them
    ///     on one core, where calls never overlap.
    ///   - stackSize: each thread's stack, when the default (512 KiB) is too small.
    public static func run(
        _ count: Int, pinned: Bool = false, stackSize: Int? = nil, within bound: Duration,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> Bool {
        stragglers(count, pinned: pinned, stackSize: stackSize, within: bound, body).isEmpty
    }

    /// A thread that had not returned when its group was given up on.
    public struct Straggler: Sendable, Equatable {
        /// Its index among the group's threads.
        public var index: Int
        /// Its kernel ID (the LWP of a thread dump), nil where there is none.
        public var threadID: Int32?
    }

    /// Runs `body(index)` like ``run(_:pinned:stackSize:within:_:)``, each thread named
    /// `producer-<index>` (as thread dumps show it), and returns the threads that had not
    /// returned within `bound`: none when all did.
    public static func stragglers(
        _ count: Int, pinned: Bool = false, stackSize: Int? = nil, within bound: Duration,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> [Straggler] {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        // Each thread's kernel ID once it runs, and whether it returned.
        let state = Lock<(ids: [Int: Int32], returned: Set<Int>)>(([:], []))
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                CorePinning.nameCurrentThread("producer-\(index)")
                if pinned { CorePinning.pinCurrentThread(toCore: index) }
                if let id = StackSample.sampleableCurrentThreadID { state.withLock { $0.ids[index] = id } }
                start.wait()
                body(index)
                state.withLock { _ = $0.returned.insert(index) }
                group.leave()
            }
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        guard group.wait(timeout: .now() + bound.dispatchInterval) != .success else { return [] }
        let (ids, returned) = state.withLock { $0 }
        return (0..<count).filter { !returned.contains($0) }.map { Straggler(index: $0, threadID: ids[$0]) }
    }
}

extension Duration {
    /// As a `DispatchTimeInterval`, for semaphore waits; a bound too long to express is
    /// as good as forever.
    public var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int((try? checkedNanoseconds()) ?? Int64(Int.max)))
    }
}

/// A fixed set of threads, each pinned to its own core when asked, that run one parallel part
/// after another, released together.
///
/// For explorations that run thousands of parallel parts of a few microseconds: creating
/// threads for each part costs more than the part, and on a loaded machine the kernel queues
/// a new thread behind the running ones for a whole slice, while a thread woken from a wait
/// is let in at once. A crew whose part does not finish in time is abandoned (its threads
/// stay where the part left them) and refuses further work.
public final class ThreadCrew: Sendable {
    private struct Shift: Sendable {
        var body: (@Sendable (Int) -> Void)?
        var abandoned = false
    }

    /// How many threads the crew has.
    public let count: Int
    private let shift = Box(Shift())
    private let calls: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)
    /// Each thread's kernel ID, and whether it finished the current part.
    private let threads: Box<[(id: Int32?, finished: Bool)]>

    /// Starts `count` threads, thread `index` pinned to the `index`-th usable core when `pinned`.
    public init(_ count: Int, pinned: Bool) {
        self.count = count
        calls = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        threads = Box(Array(repeating: (id: nil, finished: true), count: count))
        for index in 0..<count {
            let (call, shift, done, threads) = (calls[index], shift, done, threads)
            Thread {
                if pinned { CorePinning.pinCurrentThread(toCore: index) }
                threads.update { $0[index].id = CorePinning.currentThreadID }
                while true {
                    call.wait()
                    guard let body = shift.value.body else { return }
                    body(index)
                    threads.update { $0[index].finished = true }
                    done.signal()
                }
            }.start()
        }
    }

    /// The threads that had not finished the last part when it was abandoned: each one's
    /// index and kernel ID, so that a hang can say where each is stuck.
    public var stragglers: [(index: Int, threadID: Int32?)] {
        threads.value.enumerated().filter { !$0.element.finished }.map { ($0.offset, $0.element.id) }
    }

    /// Runs `body(index)` on `threads` of the crew's threads (all when nil) at once, and waits
    /// for them; false when they had not all finished within `bound`, after which the crew is
    /// abandoned.
    public func run(_ threads: Int? = nil, within bound: Duration, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let threads = min(threads ?? count, count)
        guard !shift.update({ $0.abandoned }) else { return false }
        shift.update { $0.body = body }
        self.threads.update { for index in 0..<threads { $0[index].finished = false } }
        for call in calls.prefix(threads) { call.signal() }
        let deadline = DispatchTime.now() + bound.dispatchInterval
        for _ in 0..<threads where done.wait(timeout: deadline) == .timedOut {
            shift.update { $0.abandoned = true }
            return false
        }
        // Not kept past the part: a body that holds its crew (through a race that owns it)
        // would otherwise keep the crew, and its threads, alive for good.
        shift.update { $0.body = nil }
        return true
    }

    deinit {
        shift.update { $0.body = nil }
        guard !shift.value.abandoned else { return }
        for call in calls { call.signal() }
    }
}
