import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

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
        var baseline: String?

        @Option(
            help:
                """
                A folder of earlier reports (the nightly history): judge against the last --last of them with a rank \
                test instead of against one --baseline.
                """
        )
        var history: String?

        @Option(help: "How many of the latest comparable history reports to judge against.")
        var last = 30

        @Option(help: "Significance level of the history's rank test (one-sided).")
        var alpha = 0.05

        @Option(help: "The report to judge; default: Reports/stress/latest.json.")
        var current = "Reports/stress/latest.json"

        @Option(
            name: .customLong("threshold"),
            help:
                """
                metric=percent, repeatable; metrics: throughput, p99, ratio, allocations. With --history, the \
                smallest change of the median that counts.
                """
        )
        var thresholds: [String] = []

        mutating func validate() throws {
            _ = try parsedThresholds()
            guard (baseline == nil) != (history == nil) else {
                throw ValidationError("give either --baseline REPORT or --history FOLDER")
            }
            guard (1...10_000).contains(last) else { throw ValidationError("--last must be between 1 and 10000") }
            guard alpha.isFinite, alpha > 0, alpha <= 0.5 else {
                throw ValidationError("--alpha must be above 0 and at most 0.5, got \(alpha)")
            }
        }

        func run() throws {
            let new = try ReportFiles.read(StressReport.self, at: current, what: "the current report")
            let verdict: (kind: Comparison.Kind, lines: [String])
            if let history {
                guard let earlier = History.load(history, before: new) else {
                    printError("stress compare: no earlier comparable report in '\(history)'")
                    throw ExitCode(StressExit.baselineMissing)
                }
                verdict = Comparison.judge(
                    history: Array(earlier.suffix(last)), current: new, thresholds: try parsedThresholds(), alpha: alpha
                )
            } else {
                let baseline = baseline ?? ""
                guard FileManager.default.fileExists(atPath: baseline) else {
                    printError("stress compare: baseline '\(baseline)' not found")
                    throw ExitCode(StressExit.baselineMissing)
                }
                let old = try ReportFiles.read(StressReport.self, at: baseline, what: "the baseline")
                verdict = Comparison.judge(baseline: old, current: new, thresholds: try parsedThresholds())
            }
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
                    let percent = Double(parts[1].replacingOccurrences(of: "%", with: "")), percent.isFinite,
                    percent >= 0
                else {
                    throw ValidationError(
                        """
                        bad threshold '\(entry)': use metric=percent with metric one of \
                        \(Comparison.Metric.allCases.map(\.rawValue).joined(separator: ", "))
                        """
                    )
                }
                result[metric] = percent
            }
            return result
        }
    }
}
