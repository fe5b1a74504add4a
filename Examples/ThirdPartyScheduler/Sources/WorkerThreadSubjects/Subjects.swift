import Foundation
import SchedulerConformance
import Schedulers
import Synchronization
import WorkerThreadScheduler

/// What the example's tools check: the scheduler, and three broken variants of it (origin
/// `mutant`, so they run only when named) that show what isolation buys: a deadlock
/// becomes a `timeout` with every thread's stack, a trap or a runaway recursion an `error`
/// naming where it died, and no other result is lost.
public enum WorkerThreadSubjects {
    /// The scheduler under test.
    public static let workerThread = ConformanceSubject(name: "worker-thread") {
        WorkerThreadScheduler(name: "worker-thread")
    }

    /// Holds a lock while it runs an action and takes the same lock in `schedule`: a caller
    /// scheduling while an action waits for that caller deadlocks.
    public static let lockedWhileRunning = ConformanceSubject(
        name: "worker-thread-locked-while-running", origin: .mutant
    ) {
        LockedWhileRunning()
    }

    /// Traps when an action schedules more work (a "not reentrant" precondition).
    public static let trapsWhenNested = ConformanceSubject(name: "worker-thread-traps-when-nested", origin: .mutant) {
        TrapsWhenNested()
    }

    /// Schedules by calling itself, without end: the worker dies of a stack overflow.
    public static let recursesForever = ConformanceSubject(name: "worker-thread-recurses-forever", origin: .mutant) {
        RecursesForever()
    }

    /// The same worker thread as an executor: checked by the EXE profile.
    public static let workerThreadExecutor = ConformanceSubject(name: "worker-thread-executor") {
        ExecutorUnderTest(WorkerThreadExecutor(), checksIsolation: true)
    }

    /// Every subject the example's tools know.
    public static let all = [workerThread, workerThreadExecutor, lockedWhileRunning, trapsWhenNested, recursesForever]
}

/// The deadlock-prone variant: `schedule` and every action run under one lock.
final class LockedWhileRunning: Scheduler {
    let name = "worker-thread-locked-while-running"
    private let base = WorkerThreadScheduler(name: "worker-thread-locked-while-running")
    private let lock = Mutex(())
    var capabilities: SchedulerCapabilities { base.capabilities }
    var now: SchedulerTime { base.now }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        lock.withLock { _ in
            base.schedule { [self] in lock.withLock { _ in action() } }
        }
    }
}

/// The trapping variant: an action that schedules is a precondition failure.
final class TrapsWhenNested: Scheduler {
    let name = "worker-thread-traps-when-nested"
    private let base = WorkerThreadScheduler(name: "worker-thread-traps-when-nested")
    /// The thread running an action, if any.
    private let runner = Mutex<ObjectIdentifier?>(nil)
    var capabilities: SchedulerCapabilities { base.capabilities }
    var now: SchedulerTime { base.now }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let caller = ObjectIdentifier(Thread.current)
        precondition(
            runner.withLock { $0 } != caller,
            "schedule(_:) called from inside an action: this scheduler is not reentrant")
        return base.schedule { [self] in
            runner.withLock { $0 = ObjectIdentifier(Thread.current) }
            defer { runner.withLock { $0 = nil } }
            action()
        }
    }
}

/// The runaway variant: a wrapper that forwards `schedule` to the wrong overload, itself.
final class RecursesForever: Scheduler {
    let name = "worker-thread-recurses-forever"
    private let base = WorkerThreadScheduler(name: "worker-thread-recurses-forever")
    private let calls = Atomic<Int>(0)
    var capabilities: SchedulerCapabilities { base.capabilities }
    var now: SchedulerTime { base.now }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        // Always true; the count only hides the endless recursion from the compiler's warning.
        if calls.add(1, ordering: .relaxed).newValue > 0 { return schedule { action() } }
        return base.schedule(action)
    }
}
