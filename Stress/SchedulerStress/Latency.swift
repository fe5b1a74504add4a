import Histogram
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Collects latency samples: each worker fills a histogram of its own (no sharing on the
/// hot path) and merges it once at the end.
final class LatencyCollector: Sendable {
    /// An hour in nanoseconds: beyond that a sample is out of range.
    static let highest: UInt64 = 3_600_000_000_000

    private let merged = Lock(
        Histogram<UInt64>(highestTrackableValue: LatencyCollector.highest, numberOfSignificantValueDigits: .three))
    private let outOfRange = Atomic<UInt64>(0)

    /// A histogram for one worker.
    func makeWorkerHistogram() -> WorkerHistogram { WorkerHistogram(highest: Self.highest) }

    /// Folds a worker's histogram into the run's.
    func merge(_ worker: WorkerHistogram) {
        merged.withLock { $0.add(worker.histogram) }
        outOfRange.wrappingAdd(worker.outOfRange, ordering: .relaxed)
    }

    var summary: LatencySummary? {
        merged.withLock { histogram in
            let missed = outOfRange.load(ordering: .relaxed)
            guard histogram.totalCount > 0 || missed > 0 else { return nil }
            return LatencySummary(
                p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
                p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9),
                max: histogram.max, count: histogram.totalCount, outOfRange: missed,
                histogram: histogram.logarithmicBucketValues(valueUnitsInFirstBucket: 65, logBase: 2).map {
                    LatencyBucket(upToNanoseconds: $0.value, count: $0.countAddedInThisIterationStep)
                }
            )
        }
    }
}

/// One worker's histogram.
struct WorkerHistogram {
    var histogram: Histogram<UInt64>
    var outOfRange: UInt64 = 0

    init(highest: UInt64) {
        histogram = Histogram(highestTrackableValue: highest, numberOfSignificantValueDigits: .three)
    }

    mutating func record(_ nanoseconds: UInt64) {
        if !histogram.record(nanoseconds) { outOfRange += 1 }
    }
}
