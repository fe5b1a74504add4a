import Foundation
import SchedulerVocabulary

/// A stress report in the formats existing trend services read, so a team can feed its
/// nightly numbers to the service it already runs.
extension StressReport {
    /// Bencher Metric Format: `{ "scenario/subject": { measure: { value, lower_value?,
    /// upper_value? } } }`, with Bencher's own `latency` (nanoseconds: p50, from min… p99)
    /// and `throughput` (operations per second) measures, and `ratio-to-baseline` (the
    /// benchmark's rounds as its bounds) and `allocations-per-operation` where measured.
    /// Runs that did not pass are left out: their numbers describe a failure.
    public func bencherMetricFormat() throws -> Data {
        struct Measure: Encodable {
            var value: Double
            var lowerValue: Double? = nil
            var upperValue: Double? = nil
            enum CodingKeys: String, CodingKey {
                case value
                case lowerValue = "lower_value"
                case upperValue = "upper_value"
            }
        }
        var document: [String: [String: Measure]] = [:]
        for run in runs where run.status == .passed {
            var measures: [String: Measure] = ["throughput": Measure(value: run.throughputPerSecond)]
            if let latency = run.latencyNanoseconds {
                measures["latency"] = Measure(value: Double(latency.p50), upperValue: Double(latency.p99))
            }
            if let ratio = run.ratioToBaseline {
                let rounds = run.samples?[.ratioToBaseline] ?? []
                measures["ratio-to-baseline"] = Measure(
                    value: ratio, lowerValue: rounds.min(), upperValue: rounds.max())
            }
            if let allocations = run.allocations?.perOperation {
                measures["allocations-per-operation"] = Measure(value: allocations)
            }
            document[Shard.pairID(run.scenario.rawValue, run.subject)] = measures
        }
        return try Self.encoder.encode(document)
    }

    /// JMH's JSON result format (`-rf json`): one entry per passing run, named
    /// `scheduler-behaviour.<scenario>.<subject>`, throughput (ops/s) as the primary metric,
    /// latency percentiles, the ratio to the baseline (with its rounds as raw data) and
    /// allocations as secondary metrics.
    public func jmhJSON() throws -> Data {
        struct Metric: Encodable {
            var score: Double
            var scoreError = 0.0
            var scoreConfidence: [Double]
            var scorePercentiles: [String: Double]
            var scoreUnit: String
            var rawData: [[Double]]

            init(_ values: [Double], score: Double, unit: String) {
                self.score = score
                let sorted = values.sorted()
                scoreConfidence = [sorted.first ?? score, sorted.last ?? score]
                scorePercentiles = ["0.0": sorted.first ?? score, "50.0": score, "100.0": sorted.last ?? score]
                scoreUnit = unit
                rawData = [values.isEmpty ? [score] : values]
            }
        }
        struct Entry: Encodable {
            var jmhVersion = "1.37"
            var benchmark: String
            var mode = "thrpt"
            var threads: Int
            var forks = 1
            var jvm = "swift"
            var jvmArgs: [String] = []
            var jdkVersion: String
            var vmName = "swift"
            var vmVersion: String
            var warmupIterations = 0
            var warmupTime = "0 s"
            var warmupBatchSize = 1
            var measurementIterations = 1
            var measurementTime: String
            var measurementBatchSize = 1
            var params: [String: String]
            var primaryMetric: Metric
            var secondaryMetrics: [String: Metric]
        }
        let entries = runs.filter { $0.status == .passed }.map { run in
            var secondary: [String: Metric] = [:]
            if let latency = run.latencyNanoseconds {
                for (name, value) in [("p50", latency.p50), ("p99", latency.p99), ("max", latency.max)] {
                    secondary["latency-\(name)"] = Metric([], score: Double(value), unit: "ns")
                }
            }
            if let ratio = run.ratioToBaseline {
                secondary["ratio-to-baseline"] = Metric(
                    run.samples?[.ratioToBaseline] ?? [], score: ratio, unit: "ratio")
            }
            if let allocations = run.allocations?.perOperation {
                secondary["allocations-per-operation"] = Metric([], score: allocations, unit: "allocations/op")
            }
            return Entry(
                benchmark: "scheduler-behaviour.\(run.scenario).\(run.subject)", threads: run.threads,
                jdkVersion: environment.swiftVersion, vmVersion: environment.swiftVersion,
                measurementTime: String(format: "%.3f s", run.durationSeconds),
                params: ["seed": String(run.seed), "allocator": environment.allocator ?? "system"],
                primaryMetric: Metric([], score: run.throughputPerSecond, unit: "ops/s"),
                secondaryMetrics: secondary
            )
        }
        return try Self.encoder.encode(entries)
    }
}
