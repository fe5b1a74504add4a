import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import Synchronization
import Testing

@testable import SchedulerConformance

/// What a hang report says of the threads a rule names: grouped by where they are, the
/// frame quoted apart from its file and line, and the holder of the lock each waits on.
@Suite struct HangReportTests {
    /// Two producers stuck in the same call, one gone; IDs no thread of this process has, so
    /// the kernel has nothing to say of them.
    static let dump = """
        Thread 5 (Thread 0x7f01 (LWP 2000000104) "producer-0"):
        #0  0x00007f in __lll_lock_wait () from /lib/x86_64-linux-gnu/libc.so.6
        #1  0x000055 in MyScheduler.schedule(_:) (self=...) at /src/Sources/Mine/MyScheduler.swift:42
        #2  0x000055 in closure #1 in RuleContext.onThreads(_:spread:_:) () at \
        /src/Conformance/SchedulerConformance/RuleContext.swift:310
        Thread 6 (Thread 0x7f02 (LWP 2000000105) "producer-1"):
        #0  0x00007f in __lll_lock_wait () from /lib/x86_64-linux-gnu/libc.so.6
        #1  0x000055 in MyScheduler.schedule(_:) (self=...) at /src/Sources/Mine/MyScheduler.swift:42
        #2  0x000055 in closure #1 in RuleContext.onThreads(_:spread:_:) () at \
        /src/Conformance/SchedulerConformance/RuleContext.swift:310
        Thread 7 (Thread 0x7f03 (LWP 2000000106) "producer-2"):
        #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
        #1  0x000055 in Signal.wait(_:) () at /src/Sources/SchedulerProbes/Signals.swift:27
        """

    @Test func threadsInTheSameCallAreNamedTogether() {
        let report = HangReport([
            ("producer thread 0", 2_000_000_104), ("producer thread 1", 2_000_000_105),
            ("producer thread 2", 2_000_000_106), ("producer thread 3", 2_000_000_107),
        ])
        #expect(
            report.places(in: Self.dump) == [
                """
                stuck in `MyScheduler.schedule(_:)` (MyScheduler.swift:42), called from producer thread 0, producer \
                thread 1
                """,
                "producer thread 2 waits outside the subject",
                "producer thread 3 returned only after the bound",
            ])
    }

    /// A dump past its cap keeps every named thread, then the threads in the subject's or
    /// the suite's code, and leaves out idle library threads first, saying so.
    @Test func aDumpIsBoundedAndKeepsTheThreadsThatMatter() {
        let idle = (1...40).map { index in
            """
            Thread \(index + 10) (Thread 0x7f\(index) (LWP \(3000 + index)) "oot.default-qos"):
            #0  0x00007f in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6
            #1  0x00007f in _dispatch_worker_thread () from /opt/swift/usr/lib/swift/linux/libdispatch.so
            """
        }
        let dump = (idle.prefix(20) + [Self.dump] + idle.dropFirst(20)).joined(separator: "\n")
        let ordered = HangDiagnosis.ordered(dump, first: [2_000_000_105], cap: 1_500)
        #expect(ordered.hasPrefix("Thread 6 (Thread 0x7f02 (LWP 2000000105)"))
        #expect(ordered.contains("(LWP 2000000104)") && ordered.contains("(LWP 2000000106)"), "\(ordered)")
        #expect(ordered.count < 1_500 + 200)
        #expect(ordered.hasSuffix("more threads left out, past 1 KB; idle library threads go first)"), "\(ordered)")
        #expect(HangDiagnosis.ordered(dump, first: []).contains("left out") == false, "nothing left out under the cap")
    }

    /// A Swift `Mutex` (a priority-inheriting futex on Linux) and an `NSLock` (a
    /// `pthread_mutex_t`) each name the thread that holds them.
    @Test(.enabled(if: CorePinning.currentThreadID != nil, "needs kernel thread IDs (Linux)"))
    func aThreadBlockedOnALockNamesItsHolder() {
        let mutex = Mutex(0)
        let lock = NSLock()
        expectHolder(named: "holds-mutex", inPthreadMutex: false) { holding in
            mutex.withLock { _ in holding() }
        }
        expectHolder(named: "holds-nslock", inPthreadMutex: true) { holding in
            lock.lock()
            defer { lock.unlock() }
            holding()
        }
    }

    /// Starts a thread named `name` that takes a lock through `take` and holds it while
    /// `take`'s argument runs, and a second thread that takes the same lock; the second's
    /// wait must name the first.
    private func expectHolder(
        named name: String, inPthreadMutex: Bool, _ take: @escaping @Sendable (_ holding: () -> Void) -> Void
    ) {
        let held = Signal()
        let release = Signal()
        let done = Signal()
        // Atomics, not a lock: a wait on a lock of the test's own would be found instead.
        let holder = Atomic<Int32>(-1)
        let waiting = Atomic<Int32>(-1)
        Thread {
            CorePinning.nameCurrentThread(name)
            holder.store(CorePinning.currentThreadID ?? -1, ordering: .releasing)
            take {
                held.fire()
                _ = release.wait(.seconds(30))
            }
        }.start()
        #expect(held.wait(.seconds(10)))
        Thread {
            waiting.store(CorePinning.currentThreadID ?? -1, ordering: .releasing)
            take {}
            done.fire()
        }.start()
        defer {
            release.fire()
            #expect(done.wait(.seconds(10)))
        }
        let waiter = { waiting.load(ordering: .acquiring) }
        #expect(poll { waiter() > 0 && HangDiagnosis.LockWait(of: waiter()) != nil }, "never blocked on the lock")
        let owner = HangDiagnosis.LockWait(of: waiter())?.owner(inPthreadMutex: inPthreadMutex)
        #expect(owner == holder.load(ordering: .acquiring))
        #expect(owner.flatMap(HangDiagnosis.LockWait.name(of:)) == name)
        if inPthreadMutex {
            #expect(
                HangDiagnosis.LockWait(of: waiter())?.owner(inPthreadMutex: false) == nil,
                "an unproven word is not read")
        }
    }

    /// Whether `condition` held within ten seconds: the kernel's state has no signal to
    /// wait on.
    private func poll(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(1_000)
        }
        return false
    }
}
