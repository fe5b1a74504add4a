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
/// thread parking and waking between two of them. Two bare Dispatch paths are the baselines
/// the queue's paths are compared with.
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
        }
    }

    /// Whether this is a bare Dispatch path, which the others are compared with (reported,
    /// never gated).
    public var isBareDispatch: Bool { self == .dispatchAsync || self == .dispatchExecutor }

    /// The bare Dispatch path this one is compared with, if any.
    public var baseline: HotPath? {
        switch self {
        case .queueScheduleRun: .dispatchAsync
        case .queueExecutor: .dispatchExecutor
        default: nil
        }
    }

    /// Runs `operations` operations of the path and returns once every one completed.
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
        // scheduled, and so would the count (by up to 9 % between two runs, seen).
        let gate = DispatchSemaphore(value: 0)
        switch self {
        case .dispatchAsync:
            let queue = DispatchQueue(label: rawValue)
            queue.async { gate.wait() }
            for _ in 0..<operations { queue.async(execute: count) }
            gate.signal()
        case .queueScheduleRun:
            let scheduler = QueueScheduler(name: rawValue)
            scheduler.schedule { gate.wait() }
            for _ in 0..<operations { scheduler.schedule(count) }
            gate.signal()
        case .queueDisposeBeforeRun:
            let scheduler = QueueScheduler(name: rawValue)
            scheduler.schedule { gate.wait() }
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
            scheduler.schedule { gate.wait() }
            for _ in 0..<operations { _ = try? scheduler.schedule(after: .microseconds(1), count) }
            gate.signal()
        case .dispatchExecutor, .queueExecutor:
            let executor: any SerialExecutor =
                self == .dispatchExecutor
                ? DispatchQueueExecutor(label: rawValue) : QueueScheduler(name: rawValue).executor
            let jobs = Countdown(operations)
            JobBatch(serial: executor).start(operations, then: jobs)
            return jobs.wait(.seconds(60))
        }
        return done.wait(.seconds(60))
    }
}
