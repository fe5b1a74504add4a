import Schedulers

/// What a benchmark compares its subject with: the least its user would write instead for the
/// same job, measured in the same process in alternation with the subject.
///
/// A scheduler is compared with the Dispatch call its work would otherwise be: a serial
/// scheduler with a serial queue's `async`, a main-thread one with the main queue's, a
/// concurrent one with a concurrent queue's, and one that says where its work lands (a queue
/// scheduler on a target queue) with `async` on that queue. An executor is compared with a
/// bare serial executor of its own sort, a clock with parked continuations.
public enum BareBaseline: String, Codable, Sendable, CaseIterable {
    /// `async` on a new serial `DispatchQueue`.
    case serialQueue = "serial-queue"
    /// `DispatchQueue.main.async`.
    case mainQueue = "main-queue"
    /// `async` on a new concurrent `DispatchQueue`.
    case concurrentQueue = "concurrent-queue"
    /// `async` on the queue the subject's scheduler targets (see
    /// ``ConformanceSubject/benchmarked(onTarget:)``).
    case targetQueue = "target-queue"
    /// A bare serial executor on a serial `DispatchQueue`: `async` of each job.
    case dispatchExecutor = "dispatch-executor"
    /// A bare serial executor that keeps its jobs in a list until the driving thread runs them:
    /// the least a driven (virtual-time) executor does.
    case drivenExecutor = "driven-executor"
    /// Tasks parked on bare continuations, which the driving thread resumes in deadline order:
    /// the least a manual clock does.
    case parkedContinuations = "parked-continuations"

    /// The baseline of a scheduler subject with `capabilities` that names no target queue.
    public static func forScheduler(_ capabilities: SchedulerCapabilities) -> BareBaseline {
        if capabilities.contains(.mainThread) { return .mainQueue }
        return capabilities.contains(.concurrent) ? .concurrentQueue : .serialQueue
    }

    /// How reports name it: what the subject was measured against.
    public var summary: String {
        switch self {
        case .serialQueue: "serial queue `async`"
        case .mainQueue: "`DispatchQueue.main.async`"
        case .concurrentQueue: "concurrent queue `async`"
        case .targetQueue: "`async` on its target queue"
        case .dispatchExecutor: "serial `DispatchQueue` executor"
        case .drivenExecutor: "driven serial executor"
        case .parkedContinuations: "continuations resumed in deadline order"
        }
    }
}
