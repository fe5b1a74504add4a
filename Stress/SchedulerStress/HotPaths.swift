import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// The reference library's hot paths, each a loop of one operation that `stress
/// instructions` counts under callgrind: instructions and allocations per operation, which
/// stay the same from run to run whatever else the machine does (a timed benchmark's do not).
///
/// Every path keeps its queue busy (the work is submitted in one burst behind a first action
/// that holds the queue, then drained), so what is counted is the operation, not a worker
/// thread parking and waking between two of them. Each of the library's paths that has a bare
/// equivalent (what its user would write instead) is compared with it: the bare paths are
/// measured too, never gated.
public enum HotPath: String, CaseIterable, Sendable, Codable {
    /// A bare serial `DispatchQueue.async` and the block's run: the baseline of
    /// `queue-schedule-run`.
    case dispatchAsync = "dispatch-async"
    /// `QueueScheduler.schedule(_:)` and the action's run.
    case queueScheduleRun = "queue-schedule-run"
    /// `QueueScheduler.schedule(_:)`, then `dispose()` before the action's turn comes.
    case queueDisposeBeforeRun = "queue-dispose-before-run"
    /// One step of a `scheduleRecursive` recursion on a `QueueScheduler`.
    case queueRecursiveStep = "queue-recursive-step"
    /// One step of a `scheduleRecursive` recursion on the trampoline.
    case trampolineStep = "trampoline-step"
    /// `TestScheduler.schedule(at:)` of an action, and its run by one `advance(to:)`.
    case virtualAdvance = "virtual-advance-per-action"
    /// `QueueScheduler.schedule(at:)` a microsecond ahead: a timer armed, fired and run.
    case queueTimer = "queue-timer-arm-fire"
    /// A job enqueued on a bare serial `DispatchQueue` executor and run: the baseline of
    /// `queue-executor-enqueue-run`.
    case dispatchExecutor = "dispatch-executor-enqueue-run"
    /// A job enqueued on `QueueScheduler.executor` and run.
    case queueExecutor = "queue-executor-enqueue-run"
    /// `async` on a bare concurrent `DispatchQueue` and the block's run: the baseline of
    /// `concurrent-schedule-run` and `target-queue-schedule-run`.
    case dispatchConcurrentAsync = "dispatch-concurrent-async"
    /// `ConcurrentQueueScheduler.schedule(_:)` and the action's run.
    case concurrentScheduleRun = "concurrent-schedule-run"
    /// `QueueScheduler.schedule(_:)` on a concurrent target queue, and the action's run.
    case targetQueueScheduleRun = "target-queue-schedule-run"
    /// `DispatchQueue.main.async` and the block's run: the baseline of `main-schedule-run`.
    case dispatchMainAsync = "dispatch-main-async"
    /// `MainThreadScheduler.schedule(_:)` and the action's run.
    case mainScheduleRun = "main-schedule-run"
    /// A job enqueued on a bare executor that keeps its jobs for the driving thread, and run:
    /// the baseline of `virtual-executor-enqueue-run`.
    case drivenExecutor = "driven-executor-enqueue-run"
    /// A job enqueued on `TestScheduler.executor` and run by an advance.
    case virtualExecutor = "virtual-executor-enqueue-run"
    /// A task isolated to an actor on a bare driven executor, its job enqueued and run: the
    /// baseline of `virtual-executor-actor-run`.
    case drivenExecutorActor = "driven-executor-actor-run"
    /// A task isolated to an actor on `TestScheduler.executor`, its job enqueued and run by an
    /// advance: the executor's other role, which the stress benchmark times.
    case virtualExecutorActor = "virtual-executor-actor-run"
    /// A task parked on a bare continuation and resumed by the driving thread in deadline
    /// order: the baseline of `virtual-clock-sleep`.
    case parkedSleep = "parked-continuation-sleep"
    /// A task's sleep on `TestScheduler.clock` until a deadline, and its wake-up in a run.
    case virtualClockSleep = "virtual-clock-sleep"

    /// What one operation of the path is, for reports.
    public var summary: String {
        switch self {
        case .dispatchAsync: "DispatchQueue.async of a block, and its run (baseline)"
        case .queueScheduleRun: "QueueScheduler.schedule(_:) of an action, and its run"
        case .queueDisposeBeforeRun: "QueueScheduler.schedule(_:), dispose() before its turn, and the skipped run"
        case .queueRecursiveStep: "one step of scheduleRecursive on a QueueScheduler"
        case .trampolineStep: "one step of scheduleRecursive on the trampoline"
        case .virtualAdvance: "TestScheduler.schedule(at:) of an action, and its run in an advance"
        case .queueTimer: "QueueScheduler.schedule(at:) 1 µs ahead: a timer armed, fired, and the action run"
        case .dispatchExecutor:
            "a task created in a job on a bare serial DispatchQueue executor, its job enqueued there and run (baseline)"
        case .queueExecutor: "a task created in a job on QueueScheduler.executor, its job enqueued there and run"
        case .dispatchConcurrentAsync: "async of a block on a concurrent DispatchQueue, and its run (baseline)"
        case .concurrentScheduleRun: "ConcurrentQueueScheduler.schedule(_:) of an action, and its run"
        case .targetQueueScheduleRun: "QueueScheduler.schedule(_:) on a concurrent target queue, and its run"
        case .dispatchMainAsync: "DispatchQueue.main.async of a block, and its run (baseline)"
        case .mainScheduleRun: "MainThreadScheduler.schedule(_:) of an action, and its run"
        case .drivenExecutor:
            "a task preferring a bare executor that keeps jobs for its driver, enqueued there and run (baseline)"
        case .virtualExecutor: "a task preferring TestScheduler.executor, its job enqueued there and run by a drive"
        case .drivenExecutorActor:
            "a task isolated to an actor on a bare executor that keeps jobs for its driver, enqueued and run (baseline)"
        case .virtualExecutorActor: "a task isolated to an actor on TestScheduler.executor, enqueued and run by a drive"
        case .parkedSleep: "a task parked on a bare continuation, resumed in deadline order by its driver (baseline)"
        case .virtualClockSleep: "a task's sleep on TestScheduler.clock, and its wake-up by the clock's run"
        }
    }

    /// Whether this is a bare path, which others are compared with (reported, never gated):
    /// its count moves with Dispatch's and the runtime's own caches, and no change here can
    /// regress it.
    public var isBare: Bool { HotPath.allCases.contains { $0.baseline == self } }

    /// Whether a regression of this path fails the gate. Not a bare path, nor one on a
    /// concurrent queue: how many workers Dispatch wakes for it moves its count by up to 6 %
    /// between runs (2,976–3,153 instructions an action for the concurrent scheduler in seven
    /// runs, 1,407–1,467 for a queue on a concurrent target), over the gate's 3 %. Both are
    /// still counted and compared with their bare path.
    public var isGated: Bool {
        !isBare && self != .concurrentScheduleRun && self != .targetQueueScheduleRun
    }

    /// The bare path this one is compared with, if any.
    public var baseline: HotPath? {
        switch self {
        case .queueScheduleRun: .dispatchAsync
        case .queueExecutor: .dispatchExecutor
        case .concurrentScheduleRun, .targetQueueScheduleRun: .dispatchConcurrentAsync
        case .mainScheduleRun: .dispatchMainAsync
        case .virtualExecutor: .drivenExecutor
        case .virtualExecutorActor: .drivenExecutorActor
        case .virtualClockSleep: .parkedSleep
        default: nil
        }
    }

    /// Runs `operations` operations of the path and returns once every one completed; the
    /// main-queue paths only from the main thread, which drains the main queue for them.
    /// - Throws: ``StressFailure`` when they did not complete within a minute (a broken
    ///   scheduler; under callgrind a path runs some 50 times slower than natively).
    public func run(_ operations: Int) throws(StressFailure) {
        // A first round outside the region pays what is paid once (the runtime's conformance
        // caches, the queue's worker thread, Dispatch's caches). Lazy, and on threads of their
        // own, those costs fell inside the region in some runs and outside it in others, and
        // moved a path's count by up to 9 % between runs.
        guard operate(min(operations, 1_000)) else {
            throw StressFailure("\(rawValue): its warm-up round did not complete within a minute")
        }
        var completed = false
        // Everything a profiler should count, and nothing else: no start-up, no tear-down.
        MeasuredRegion.run { completed = operate(operations) }
        guard completed else {
            throw StressFailure("\(rawValue): \(operations) operations did not complete within a minute")
        }
    }

    /// The callgrind function name around each run, see ``MeasuredRegion``.
    public static let measuredRegion = MeasuredRegion.symbol

    /// Runs the operations; whether they all completed within a minute.
    private func operate(_ operations: Int) -> Bool {
        let done = Countdown(1)
        let remaining = Atomic<Int>(operations)
        let count: @Sendable () -> Void = {
            if remaining.wrappingSubtract(1, ordering: .relaxed).newValue == 0 { done.tick() }
        }
        // A queue is held up by a first action until every operation was submitted, then
        // drains them in one go: had its worker run beside the producer, how often it caught
        // up, went idle and had to be woken again would depend on how the two threads were
        // scheduled, and so would the count (by up to 9 % between two runs, seen). The producer
        // starts only once that action runs: a worker still waking while the first operations
        // came in took some of them with it, and moved queue-schedule-run's count by 4 %.
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let hold: @Sendable () -> Void = {
            holding.signal()
            gate.wait()
        }
        // A minute: a queue that never runs the holding action is broken.
        let isHeld = { holding.wait(timeout: .now() + .seconds(60)) == .success }
        switch self {
        case .dispatchAsync:
            let queue = DispatchQueue(label: rawValue)
            queue.async(execute: hold)
            guard isHeld() else { return false }
            for _ in 0..<operations { queue.async(execute: count) }
            gate.signal()
        case .queueScheduleRun:
            let scheduler = QueueScheduler(name: rawValue)
            scheduler.schedule(hold)
            guard isHeld() else { return false }
            for _ in 0..<operations { scheduler.schedule(count) }
            gate.signal()
        case .queueDisposeBeforeRun:
            let scheduler = QueueScheduler(name: rawValue)
            scheduler.schedule(hold)
            guard isHeld() else { return false }
            for _ in 0..<operations { scheduler.schedule(count)?.dispose() }
            gate.signal()
            scheduler.schedule { done.tick() }
        case .queueRecursiveStep, .trampolineStep:
            let scheduler: any Scheduler =
                self == .trampolineStep ? TrampolineScheduler.shared : QueueScheduler(name: rawValue)
            let steps = Atomic<Int>(0)
            scheduler.scheduleRecursive { reschedule in
                if steps.wrappingAdd(1, ordering: .relaxed).newValue < operations { reschedule() } else { done.tick() }
            }
        case .virtualAdvance:
            let scheduler = TestScheduler(name: rawValue)
            for index in 0..<operations {
                _ = try? scheduler.schedule(at: SchedulerTime(nanoseconds: UInt64(index + 1)), count)
            }
            scheduler.advance(to: (try? SchedulerTime(nanoseconds: UInt64(operations))) ?? .distantFuture)
        case .queueTimer:
            // Held up too, so the timers fire into a queue that is busy until all are armed.
            let scheduler = QueueScheduler(name: rawValue)
            scheduler.schedule(hold)
            guard isHeld() else { return false }
            for _ in 0..<operations { _ = try? scheduler.schedule(after: .microseconds(1), count) }
            gate.signal()
        case .dispatchExecutor, .queueExecutor:
            let executor: any SerialExecutor =
                self == .dispatchExecutor
                ? DispatchQueueExecutor(label: rawValue) : QueueScheduler(name: rawValue).executor
            let jobs = Countdown(operations)
            JobBatch(serial: executor).start(operations, then: jobs)
            return jobs.wait(.seconds(60))
        case .dispatchConcurrentAsync, .concurrentScheduleRun, .targetQueueScheduleRun:
            // A barrier holds a concurrent queue: the work waits behind it, then runs side by side.
            let concurrent = DispatchQueue(label: rawValue, attributes: .concurrent)
            let scheduler: (any Scheduler)? =
                switch self {
                case .concurrentScheduleRun: ConcurrentQueueScheduler(name: rawValue)
                case .targetQueueScheduleRun: QueueScheduler(name: rawValue, targetQueue: concurrent)
                default: nil
                }
            let held = (scheduler as? ConcurrentQueueScheduler)?.queue ?? concurrent
            held.async(flags: .barrier, execute: hold)
            guard isHeld() else { return false }
            for _ in 0..<operations {
                if let scheduler { scheduler.schedule(count) } else { concurrent.async(execute: count) }
            }
            gate.signal()
        case .dispatchMainAsync, .mainScheduleRun:
            // This thread holds the main queue while it submits, then drains it.
            for _ in 0..<operations {
                if self == .mainScheduleRun {
                    MainThreadScheduler.shared.schedule(count)
                } else {
                    DispatchQueue.main.async(execute: count)
                }
            }
            let drained = try? MainThreadScheduler.drain(until: { done.count == 0 }, timeout: .seconds(60))
            return drained ?? false
        case .drivenExecutor, .virtualExecutor, .drivenExecutorActor, .virtualExecutorActor, .parkedSleep,
            .virtualClockSleep:
            return operateDriven(operations)
        }
        return done.wait(.seconds(60))
    }

    /// The driven executor paths' tasks: isolated to an actor on `executor`, or preferring it.
    private func batch(on executor: any SerialExecutor & TaskExecutor) -> JobBatch {
        self == .drivenExecutorActor || self == .virtualExecutorActor
            ? JobBatch(drivenSerial: executor) : JobBatch(task: executor)
    }

    /// The paths a driving thread runs: each starts its tasks, which enqueue their first jobs
    /// at once, then drives until every one ended.
    private func operateDriven(_ operations: Int) -> Bool {
        let done = Countdown(operations)
        let scheduler = TestScheduler(name: rawValue)
        let executor = scheduler.executor
        switch self {
        case .drivenExecutor, .drivenExecutorActor:
            let driven = DrivenSerialExecutor()
            batch(on: driven).start(operations, then: done)
            driven.drive()
        case .virtualExecutor, .virtualExecutorActor:
            batch(on: executor).start(operations, then: done)
            try? scheduler.advance(by: .zero)
        case .parkedSleep:
            let parked = ParkedContinuations()
            for index in 0..<operations {
                Task(executorPreference: executor) {
                    await withUnsafeContinuation { parked.add($0, deadline: index + 1) }
                    done.tick()
                }
            }
            try? scheduler.advance(by: .zero)
            parked.resumeAll()
            try? scheduler.advance(by: .zero)
        default:
            let clock = scheduler.clock
            for index in 0..<operations {
                Task(executorPreference: executor) {
                    try? await clock.sleep(until: .init(offset: .nanoseconds(index + 1)))
                    done.tick()
                }
            }
            clock.run()
        }
        return done.wait(.seconds(60))
    }
}
