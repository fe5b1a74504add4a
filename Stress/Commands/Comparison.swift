import Foundation
import SchedulerStress
import SchedulerVocabulary

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

        /// Whether `earlier`'s value of this metric means what `run`'s does: a ratio does only
        /// when both were measured against the same bare baseline.
        func comparable(_ earlier: StressRun, _ run: StressRun) -> Bool {
            self != .ratio || earlier.ratioBaseline == run.ratioBaseline
        }

        /// The run's values of this metric for a rank test: a benchmark's rounds when it
        /// kept them, else the one value.
        func samples(_ run: StressRun) -> [Double] {
            if self == .ratio, let rounds = run.samples?[.ratioToBaseline], !rounds.isEmpty { return rounds }
            return value(run).map { [$0] } ?? []
        }
    }

    /// Percent changes that count, per metric; chosen for a shared, noisy 2-core machine.
    static let defaultThresholds: [Metric: Double] = [.throughput: 15, .p99: 50, .ratio: 15, .allocations: 5]

    enum Kind { case noChange, regression, improvementOnly }

    /// A run that fails now, but did not in `earlier` (or is new), is a regression whatever
    /// its numbers.
    private static func newFailure(_ run: StressRun, earlier: StressRun?) -> String? {
        guard run.status.isFailure, earlier.map({ !$0.status.isFailure }) ?? true else { return nil }
        return
            """
            \(run.scenario) × \(run.subject): now \
            \(run.status.rawValue)\(earlier == nil ? " (not in the baseline)" : "") — \(run.message ?? "")
            """
    }

    /// The verdict from what was found, improvements reported only when nothing regressed.
    private static func verdict(notes: [String], regressions: [String], improvements: [String]) -> (
        kind: Kind, lines: [String]
    ) {
        if !regressions.isEmpty { return (.regression, notes + regressions + improvements) }
        if !improvements.isEmpty { return (.improvementOnly, notes + improvements) }
        return (.noChange, notes)
    }

    /// Judges `current` against earlier comparable reports, oldest first. For each run and
    /// metric, a Mann–Whitney U test ranks the current values (a benchmark's rounds, or the
    /// one value) against every earlier run's; a change counts when it is significant at
    /// `alpha` one-sided and the median moved by more than the metric's threshold. A single
    /// value against k earlier runs can reach p = 1/(k+1) at best, so one night is judged on
    /// those metrics once the history is long enough for that to fall under `alpha`.
    static func judge(history: [StressReport], current: StressReport, thresholds: [Metric: Double], alpha: Double) -> (
        kind: Kind, lines: [String]
    ) {
        let key = { (run: StressRun) in "\(run.scenario)|\(run.subject)" }
        let byReport = history.map { report in
            Dictionary(report.runs.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        }
        var regressions: [String] = []
        var improvements: [String] = []
        var notes = [
            """
            judged against \(history.count) earlier run\(history.count == 1 ? "" : "s") \
            (\(history.first?.generatedAt ?? "") … \(history.last?.generatedAt ?? "")) with a Mann–Whitney U test at \
            alpha \(alpha)
            """
        ]
        let singleFloor = 1 / Double(history.count + 1)
        if singleFloor >= alpha {
            notes.append(
                """
                with \(history.count) earlier runs, a single value cannot reach p < \(alpha) (at best \
                \(String(format: "%.3g", singleFloor))): only metrics measured in rounds are judged tonight
                """
            )
        }
        for run in current.runs where run.status != .skipped {
            let name = "\(run.scenario) × \(run.subject)"
            let earlier = byReport.compactMap { $0[key(run)] }
            if let failure = newFailure(run, earlier: earlier.last) {
                regressions.append(failure)
                continue
            }
            let passing = earlier.filter { !$0.status.isFailure }
            for metric in Metric.allCases {
                guard let threshold = thresholds[metric] else { continue }
                let now = metric.samples(run)
                let comparable = passing.filter { metric.comparable($0, run) }
                let before = comparable.flatMap(metric.samples)
                guard !now.isEmpty, !before.isEmpty else { continue }
                let test = RankTest.mannWhitney(now, before)
                let (worse, better) = metric.higherIsBetter ? (test.less, test.greater) : (test.greater, test.less)
                let was = median(before)
                let tonight = median(now)
                guard was > 0 else { continue }
                let change = (tonight - was) / was * 100
                let gain = metric.higherIsBetter ? change : -change
                let line =
                    """
                    \(name) \(metric.rawValue): median \(String(format: "%.3g", was)) over \(comparable.count) runs → \
                    \(String(format: "%.3g", tonight)) (\(String(format: "%+.1f", change))%)
                    """
                if worse < alpha && gain < -threshold {
                    regressions.append("regression: \(line), p = \(String(format: "%.2g", worse))")
                } else if better < alpha && gain > threshold {
                    improvements.append("improvement: \(line), p = \(String(format: "%.2g", better))")
                }
            }
        }
        return verdict(notes: notes, regressions: regressions, improvements: improvements)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func judge(baseline: StressReport, current: StressReport, thresholds: [Metric: Double]) -> (
        kind: Kind, lines: [String]
    ) {
        let before = Dictionary(
            baseline.runs.map { ("\($0.scenario)|\($0.subject)", $0) }, uniquingKeysWith: { first, _ in first })
        let sameAllocator = baseline.environment.allocator == current.environment.allocator
        var regressions: [String] = []
        var improvements: [String] = []
        var notes: [String] = []
        for run in current.runs where run.status != .skipped {
            let name = "\(run.scenario) × \(run.subject)"
            let old = before["\(run.scenario)|\(run.subject)"]
            if let failure = newFailure(run, earlier: old) {
                regressions.append(failure)
                continue
            }
            guard let old else { continue }
            for metric in Metric.allCases {
                if metric == .allocations && !sameAllocator { continue }
                guard metric.comparable(old, run) else {
                    notes.append("\(name) \(metric.rawValue): not compared, the bare baseline changed")
                    continue
                }
                guard let was = metric.value(old), let now = metric.value(run), let threshold = thresholds[metric]
                else { continue }
                guard was > 0 else {
                    // From nothing to something is a regression when lower is better.
                    if !metric.higherIsBetter && now > 0 {
                        regressions.append("regression: \(name) \(metric.rawValue): 0 → \(String(format: "%.3g", now))")
                    }
                    continue
                }
                let change = (now - was) / was * 100
                let better = metric.higherIsBetter ? change : -change
                let line =
                    """
                    \(name) \(metric.rawValue): \(String(format: "%.3g", was)) → \(String(format: "%.3g", now)) \
                    (\(String(format: "%+.1f", change))%)
                    """
                if better < -threshold {
                    regressions.append("regression: " + line)
                } else if better > threshold {
                    improvements.append("improvement: " + line)
                }
            }
        }
        if !sameAllocator {
            notes.insert(
                """
                allocators differ (\(baseline.environment.allocator ?? "unknown") vs \
                \(current.environment.allocator ?? "unknown")): allocations not compared
                """, at: 0)
        }
        return verdict(notes: notes, regressions: regressions, improvements: improvements)
    }
}

extension StressRun {
    /// The bare baseline a benchmark's ratio is against. Reports from before runs recorded it
    /// measured every scheduler against a serial queue, every executor against a Dispatch
    /// executor and every clock against parked continuations.
    fileprivate var ratioBaseline: BareBaseline? {
        baseline
            ?? [
                .throughput: .serialQueue, .executorThroughput: .dispatchExecutor,
                .sleepThroughput: .parkedContinuations,
            ][
                scenario]
    }
}
