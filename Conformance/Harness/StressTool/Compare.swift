import ArgumentParser
import Foundation
import SchedulerStress

extension StressCommand {
    /// Compares a report with an earlier one, metric by metric.
    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare a stress report with a baseline report.",
            discussion: """
            Exit status: 0 no change beyond the thresholds, 10 regression, 11 improvement only, \
            12 baseline missing, 64 bad usage. A run that newly fails (forbidden outcome, timeout, \
            error) is a regression whatever the thresholds. Allocation numbers are compared only \
            when both reports used the same allocator.
            """
        )

        @Option(help: "The earlier report (a path).")
        var baseline: String

        @Option(help: "The report to judge; default: Reports/stress/latest.json.")
        var current = "Reports/stress/latest.json"

        @Option(name: .customLong("threshold"), help: "metric=percent, repeatable; metrics: throughput, p99, ratio, allocations.")
        var thresholds: [String] = []

        mutating func validate() throws {
            _ = try parsedThresholds()
        }

        func run() throws {
            guard FileManager.default.fileExists(atPath: baseline) else {
                printError("stress compare: baseline '\(baseline)' not found")
                throw ExitCode(StressExit.baselineMissing)
            }
            let old = try ReportFiles.read(StressReport.self, at: baseline, what: "the baseline")
            let new = try ReportFiles.read(StressReport.self, at: current, what: "the current report")
            let verdict = Comparison.judge(baseline: old, current: new, thresholds: try parsedThresholds())
            for line in verdict.lines { print(line) }
            switch verdict.kind {
            case .noChange: print("no change beyond the thresholds")
            case .regression: throw ExitCode(StressExit.regression)
            case .improvementOnly: throw ExitCode(StressExit.improvementOnly)
            }
        }

        private func parsedThresholds() throws -> [Comparison.Metric: Double] {
            var result = Comparison.defaultThresholds
            for entry in thresholds {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let metric = Comparison.Metric(rawValue: parts[0]),
                      let percent = Double(parts[1].replacingOccurrences(of: "%", with: "")), percent.isFinite, percent >= 0 else {
                    throw ValidationError("bad threshold '\(entry)': use metric=percent with metric one of \(Comparison.Metric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                result[metric] = percent
            }
            return result
        }
    }
}

/// The judgement of a report against a baseline.
enum Comparison {
    enum Metric: String, CaseIterable {
        case throughput, p99, ratio, allocations

        /// Whether a larger value is better.
        var higherIsBetter: Bool { self == .throughput }

        func value(_ run: StressRun) -> Double? {
            switch self {
            case .throughput: run.operations > 0 ? run.throughputPerSecond : nil
            case .p99: run.latencyNanoseconds.map { Double($0.p99) }
            case .ratio: run.ratioToBaseline
            case .allocations: run.allocations?.perOperation
            }
        }
    }

    /// Percent changes that count, per metric; chosen for a shared, noisy 2-core machine.
    static let defaultThresholds: [Metric: Double] = [.throughput: 15, .p99: 50, .ratio: 15, .allocations: 5]

    enum Kind { case noChange, regression, improvementOnly }

    static func judge(baseline: StressReport, current: StressReport, thresholds: [Metric: Double]) -> (kind: Kind, lines: [String]) {
        let before = Dictionary(baseline.runs.map { ("\($0.scenario)|\($0.subject)", $0) }, uniquingKeysWith: { first, _ in first })
        let sameAllocator = baseline.environment.allocator == current.environment.allocator
        var regressions: [String] = [], improvements: [String] = []
        for run in current.runs where run.status != .skipped {
            let name = "\(run.scenario) × \(run.subject)"
            let old = before["\(run.scenario)|\(run.subject)"]
            if run.status.isFailure, old.map({ !$0.status.isFailure }) ?? true {
                regressions.append("\(name): now \(run.status.rawValue)\(old == nil ? " (not in the baseline)" : "") — \(run.message ?? "")")
                continue
            }
            guard let old else { continue }
            for metric in Metric.allCases {
                if metric == .allocations && !sameAllocator { continue }
                guard let was = metric.value(old), let now = metric.value(run), let threshold = thresholds[metric] else { continue }
                guard was > 0 else {
                    // From nothing to something is a regression when lower is better.
                    if !metric.higherIsBetter && now > 0 { regressions.append("regression: \(name) \(metric.rawValue): 0 → \(String(format: "%.3g", now))") }
                    continue
                }
                let change = (now - was) / was * 100
                let better = metric.higherIsBetter ? change : -change
                let line = "\(name) \(metric.rawValue): \(String(format: "%.3g", was)) → \(String(format: "%.3g", now)) (\(String(format: "%+.1f", change))%)"
                if better < -threshold { regressions.append("regression: " + line) }
                else if better > threshold { improvements.append("improvement: " + line) }
            }
        }
        let notes = sameAllocator ? [] : ["allocators differ (\(baseline.environment.allocator) vs \(current.environment.allocator)): allocations not compared"]
        if !regressions.isEmpty { return (.regression, notes + regressions + improvements) }
        if !improvements.isEmpty { return (.improvementOnly, notes + improvements) }
        return (.noChange, notes)
    }
}
