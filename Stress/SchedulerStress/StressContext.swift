import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// What a scenario works with and writes to: the subject, its share of the budget, the
/// thread count and seed, and the collectors of outcomes, latency and allocations.
public final class StressContext: Sendable {
    public let subject: ConformanceSubject
    /// Producer threads to use (the machine's cores times the oversubscription factor).
    public let threads: Int
    /// How long the scenario should keep going.
    public let duration: Duration
    /// The seed of every random choice, so a failing run can be repeated.
    public let seed: UInt64
    /// Upper bound for "must happen" waits.
    public let mustHappen: Duration
    /// How late after a `dispose()` returned a start may be and still count as the race
    /// the dispose lost (a thread preempted between claiming and starting the action).
    public let grace: Duration

    let started = ContinuousClock.now
    private let counts = Lock<[String: Int]>([:])
    private let operationCount = Atomic<Int>(0)
    private let extraMetrics = Lock<[StressMetric: Double]>([:])
    private let extraSamples = Lock<[StressMetric: [Double]]>([:])
    private let growthCurve = Lock<GrowthCurve?>(nil)
    private let memoryCurve = Lock<MemoryCurve?>(nil)
    let latency = LatencyCollector()
    let allocations = AllocationCollector()

    /// A context for one run of a scenario against `subject`.
    public init(
        subject: ConformanceSubject, threads: Int, duration: Duration, seed: UInt64,
        mustHappen: Duration = .seconds(10), grace: Duration = .milliseconds(20)
    ) {
        self.subject = subject
        self.threads = max(1, threads)
        self.duration = duration
        self.seed = seed
        self.mustHappen = mustHappen
        self.grace = grace
    }

    /// Whether the scenario's share of the budget is used up.
    public var timeIsUp: Bool { ContinuousClock.now - started >= duration }

    /// Runs `body` for rounds 1, 2, … until the budget is used (at least once), or until
    /// `body` returns false.
    public func eachRound(_ body: (_ round: Int) throws(StressFailure) -> Bool) throws(StressFailure) {
        var round = 0
        repeat {
            round += 1
            guard try body(round) else { return }
        } while !timeIsUp
    }

    /// Counts `count` occurrences of `outcome`.
    public func record(_ outcome: some StressOutcome, count: Int = 1) {
        guard count > 0 else { return }
        counts.withLock { $0[outcome.rawValue, default: 0] += count }
    }

    /// Counts operations towards the throughput.
    public func addOperations(_ count: Int) { operationCount.wrappingAdd(count, ordering: .relaxed) }

    /// Sets a measurement for the report.
    public func setMetric(_ metric: StressMetric, _ value: Double) { extraMetrics.withLock { $0[metric] = value } }

    /// Keeps the values a metric measured in rounds took, one per round: a rank test
    /// against earlier runs (`stress compare --history`) needs the spread, not one number.
    public func setSamples(_ metric: StressMetric, _ values: [Double]) { extraSamples.withLock { $0[metric] = values } }

    /// Keeps the `growth` scenario's curve for the report.
    func setGrowth(_ curve: GrowthCurve) { growthCurve.withLock { $0 = curve } }

    /// Keeps the `soak` scenario's memory samples for the report.
    func setMemory(_ curve: MemoryCurve) { memoryCurve.withLock { $0 = curve } }

    var outcomeCounts: [String: Int] { counts.withLock { $0 } }
    var operations: Int { operationCount.load(ordering: .relaxed) }
    var metrics: [StressMetric: Double] { extraMetrics.withLock { $0 } }
    var samples: [StressMetric: [Double]] { extraSamples.withLock { $0 } }
    var growth: GrowthCurve? { growthCurve.withLock { $0 } }
    var memory: MemoryCurve? { memoryCurve.withLock { $0 } }

    /// A random generator for one worker, derived from the run's seed.
    public func generator(_ worker: Int) -> SplitMix64 { SplitMix64(seed: seed &+ UInt64(worker) &* 0x9E37_79B9) }

    /// Runs `body(index)` on `count` new threads started together, and waits for all of them.
    public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) throws(StressFailure) {
        // Threads run until the budget is used, plus what they wait for.
        let bound = duration + mustHappen * 2
        guard Threads.run(count, stackSize: 1 << 20, within: bound, body) else {
            throw StressFailure("worker threads did not finish within \(bound)")
        }
    }

    /// The monotonic clock in nanoseconds, for latencies.
    @inline(__always)
    public static func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
