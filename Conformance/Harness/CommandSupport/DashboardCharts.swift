import Foundation
import SchedulerVocabulary

/// The data of the dashboard's charts: latency, histograms, benchmarks and trends, as the
/// page's script draws them.
extension Dashboard {
    // MARK: - Chart data

    /// How many of the latest runs the trends show.
    package static let trendRuns = 60

    private struct Series: Encodable {
        package var name: String
        package var values: [Double?]
    }

    private struct Chart: Encodable {
        package var section: String
        package var title: String
        package var kind: String
        package var labels: [String]
        package var series: [Series]
        package var logarithmic: Bool
        package var unit: String
    }

    static func chartData(stress: StressReport?, history: [StressReport]) throws -> String {
        var charts: [Chart] = []
        if let stress {
            let measured = stress.runs.filter { $0.status != .skipped }
            for scenario in ordered(measured.map(\.scenario)) {
                let runs = measured.filter { $0.scenario == scenario && $0.latencyNanoseconds != nil }
                guard !runs.isEmpty else { continue }
                charts.append(
                    Chart(
                        section: "latency", title: scenario.rawValue, kind: "line",
                        labels: ["p50", "p90", "p99", "p99.9", "max"],
                        series: runs.map { run in
                            let latency = run.latencyNanoseconds!
                            return Series(
                                name: run.subject,
                                values: [latency.p50, latency.p90, latency.p99, latency.p999, latency.max].map {
                                    Double(max($0, 1))
                                })
                        },
                        logarithmic: true, unit: "ns"
                    ))
            }
            for scenario in ordered(measured.map(\.scenario)) {
                let runs = measured.filter {
                    $0.scenario == scenario && $0.latencyNanoseconds?.histogram?.isEmpty == false
                }
                guard !runs.isEmpty else { continue }
                // Shares of each subject's samples, so subjects with more samples do not tower.
                let bounds = Array(Set(runs.flatMap { $0.latencyNanoseconds!.histogram!.map(\.upToNanoseconds) }))
                    .sorted()
                charts.append(
                    Chart(
                        section: "histograms", title: scenario.rawValue, kind: "bar",
                        labels: bounds.map { "≤ " + nanoseconds($0) },
                        series: runs.map { run in
                            let buckets = run.latencyNanoseconds!.histogram!
                            let total = Double(max(buckets.reduce(0) { $0 + $1.count }, 1))
                            let counts = Dictionary(buckets.map { ($0.upToNanoseconds, $0.count) }, uniquingKeysWith: +)
                            return Series(
                                name: run.subject, values: bounds.map { Double(counts[$0] ?? 0) / total * 100 })
                        },
                        logarithmic: false, unit: "% of samples"
                    ))
            }
            for scenario in ordered(measured.filter { $0.ratioToBaseline != nil }.map(\.scenario)) {
                let runs = measured.filter { $0.scenario == scenario && $0.ratioToBaseline != nil }
                charts.append(
                    Chart(
                        section: "benchmarks", title: "\(scenario): cost ÷ baseline", kind: "bar",
                        labels: runs.map(\.subject),
                        series: [Series(name: "ratio to baseline", values: runs.map(\.ratioToBaseline))],
                        logarithmic: false, unit: "×"))
                if runs.contains(where: { $0.allocations != nil }) {
                    charts.append(
                        Chart(
                            section: "benchmarks", title: "\(scenario): allocations per operation", kind: "bar",
                            labels: runs.map(\.subject),
                            series: [Series(name: "allocations", values: runs.map { $0.allocations?.perOperation })],
                            logarithmic: false, unit: "allocations"))
                }
            }
            for run in measured {
                guard let memory = run.memory, !memory.samples.isEmpty else { continue }
                let mebibytes = { (bytes: UInt64?) in bytes.map { Double($0) / 1_048_576 } }
                let growth =
                    memory.liveGrowthPerMillion.map { String(format: ", heap %+.0f B per 10⁶ actions", $0) } ?? ""
                charts.append(
                    Chart(
                        section: "soak", title: "\(run.scenario) × \(run.subject)\(growth)", kind: "line",
                        labels: memory.samples.map { String(format: "%.1fM", Double($0.actions) / 1e6) },
                        series: [
                            Series(name: "live heap (MiB)", values: memory.samples.map { mebibytes($0.liveBytes) }),
                            Series(name: "resident (MiB)", values: memory.samples.map { mebibytes($0.residentBytes) }),
                        ],
                        logarithmic: false, unit: "MiB"))
            }
            let curves = measured.compactMap { run in run.growth.map { (run.subject, $0) } }
            for workload in ordered(curves.map(\.1.workload.rawValue)) {
                let mine = curves.filter { $0.1.workload.rawValue == workload }
                let sizes = Array(Set(mine.flatMap(\.1.sizes))).sorted()
                charts.append(
                    Chart(
                        section: "growth", title: "\(workload): nanoseconds per action", kind: "line",
                        labels: sizes.map { "n = \($0)" },
                        series: mine.map { subject, curve in
                            let cost = Dictionary(
                                zip(curve.sizes, curve.nanosecondsPerAction).map { ($0, $1) },
                                uniquingKeysWith: { a, _ in a })
                            return Series(
                                name: subject + (curve.exponent.map { String(format: " (k = %.2f)", $0) } ?? ""),
                                values: sizes.map { cost[$0] })
                        },
                        logarithmic: true, unit: "ns per action"))
            }
            if !history.isEmpty { charts += trends(Array((history + [stress]).suffix(trendRuns))) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // No `<` at all inside the script element the data sits in: `</script>` or `<!--` in a
        // subject's name must not end it. `\u003c` is the same character to JSON.
        return String(decoding: try encoder.encode(charts), as: UTF8.self).replacingOccurrences(
            of: "<", with: "\\u003c")
    }

    /// Per scenario: throughput and p99 of each subject over the runs; per benchmark, the
    /// ratio to its baseline.
    private static func trends(_ reports: [StressReport]) -> [Chart] {
        let labels = reports.map { String($0.generatedAt.prefix(16)).replacingOccurrences(of: "T", with: " ") }
        let keyed = reports.map { report in
            Dictionary(
                report.runs.map { ("\($0.scenario)|\($0.subject)", $0) }, uniquingKeysWith: { first, _ in first })
        }
        let runs = reports.flatMap(\.runs).filter { $0.status != .skipped }
        var charts: [Chart] = []
        for scenario in ordered(runs.map(\.scenario)) {
            let subjects = ordered(runs.filter { $0.scenario == scenario }.map(\.subject))
            func series(_ value: (StressRun) -> Double?) -> [Series] {
                subjects.map { subject in
                    Series(
                        name: subject,
                        values: keyed.map {
                            $0["\(scenario)|\(subject)"].flatMap { $0.status == .passed ? value($0) : nil }
                        })
                }
            }
            charts.append(
                Chart(
                    section: "trends", title: "\(scenario): operations per second", kind: "line", labels: labels,
                    series: series { $0.throughputPerSecond }, logarithmic: true, unit: "ops/s"))
            if runs.contains(where: { $0.scenario == scenario && $0.latencyNanoseconds != nil }) {
                charts.append(
                    Chart(
                        section: "trends", title: "\(scenario): p99 latency", kind: "line", labels: labels,
                        series: series { $0.latencyNanoseconds.map { Double($0.p99) } }, logarithmic: true, unit: "ns"))
            }
            if runs.contains(where: { $0.scenario == scenario && $0.ratioToBaseline != nil }) {
                charts.append(
                    Chart(
                        section: "trends", title: "\(scenario): ratio to baseline", kind: "line", labels: labels,
                        series: series(\.ratioToBaseline), logarithmic: false, unit: "×"))
            }
        }
        return charts
    }
}
