import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    /// A stress report as a Markdown table: one row per subject, its throughput and
    /// allocations beside the bare-Dispatch baseline, and its status in every scenario.
    struct Table: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print a stress report as a Markdown table of subjects: throughput, allocations and scenario statuses."
        )

        @Argument(help: "The report to render.")
        var report = "Reports/stress/latest.json"

        @Option(
            help:
                """
                Replace what stands between <!-- stress:begin --> and <!-- stress:end --> in this file, instead of \
                printing.
                """
        )
        var into: String?

        func run() throws {
            let decoded = try ReportFiles.read(StressReport.self, at: report, what: "a stress report")
            try GeneratedSection(name: "stress").publish(
                Self.render(decoded, explanations: Toolkit.current.explanations), into: into)
        }

        static func render(_ report: StressReport, explanations: Explanations) -> String {
            var subjects: [(name: String, origin: ConformanceSubject.Origin)] = []
            for run in report.runs where !subjects.contains(where: { $0.name == run.subject }) {
                subjects.append((run.subject, run.origin))
            }
            let scenarios = report.runs.map(\.scenario).reduce(into: [ScenarioID]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            let benchmarks: [ScenarioID: BenchmarkUnit] = [
                .throughput: .action, .executorThroughput: .job, .sleepThroughput: .sleep,
            ]
            let others = scenarios.filter { benchmarks[$0] == nil }
            var lines = [
                """
                Generated from one `stress` run (`make matrix`) on \(report.environment.os), \
                \(report.environment.cpuCount) cores, allocator \(report.environment.allocator ?? "unknown"), \
                \(report.generatedAt); do not edit by hand.
                """,
                """
                Cost: nanoseconds per scheduled action (per job for an executor, per sleep for a manual clock), and \
                its ratio to the bare baseline the row names, what a user would write instead, measured in the same \
                process in alternation; allocations per action, job or sleep beyond that baseline (jemalloc only). \
                Growth: k in time ∝ nᵏ as the work queued grows from 10³ to 10⁶ actions (≤ 1.1 does not grow). Then \
                each scenario's status:
                """ + " " + RuleResult.Status.legend,
                "",
                row(
                    ["subject", "origin", "ns/op", "× bare", "bare baseline", "extra allocs/op", "growth k"]
                        + others.map(\.rawValue)),
                row(["---", "---", "--:", "--:", "---", "--:", "--:"] + others.map { _ in ":-:" }),
            ]
            for subject in subjects {
                let runs = report.runs.filter { $0.subject == subject.name }
                let benchmark = runs.lazy.compactMap { run in
                    benchmarks[run.scenario].flatMap { run.status == .passed ? (run, $0) : nil }
                }.first
                let growth = runs.first { $0.scenario == .growth }?.growth?.exponent
                let cells = [
                    benchmark.flatMap { run, unit in run.metrics[unit.nanoseconds] }.map { String(format: "%.0f", $0) },
                    benchmark.flatMap { run, _ in run.metrics[.ratioToBaseline] }.map { String(format: "%.2f×", $0) },
                    benchmark.flatMap { run, _ in run.baseline?.summary },
                    benchmark.flatMap { run, unit in run.metrics[unit.extraAllocations] }.map {
                        String(format: "%+.1f", $0)
                    },
                    growth.map { String(format: "%.2f", $0) },
                ].map { $0 ?? "—" }
                let statuses = others.map { scenario in
                    (runs.first { $0.scenario == scenario }?.status ?? .skipped).symbol
                }
                lines.append(row([subject.name, subject.origin.rawValue] + cells + statuses))
            }
            let failures = report.runs.filter { $0.origin == .thirdParty && $0.status.isFailure }
            if !failures.isEmpty { lines += ["", "Third-party failures:", ""] }
            for run in failures {
                let why =
                    explanations.explanation(subject: run.subject, check: .scenario(run.scenario))
                    ?? "Unexplained: to be investigated."
                let observed =
                    run.message
                    ?? run.outcomes.filter { $0.value.expect == .forbidden && $0.value.count > 0 }
                    .map { "\($0.key) ×\($0.value.count)" }.sorted().joined(separator: ", ")
                lines.append("- **\(run.subject) \(run.scenario)** — observed: \(observed). \(why)")
            }
            return lines.joined(separator: "\n")
        }

        /// One Markdown table row.
        private static func row(_ cells: [String]) -> String {
            "| " + cells.joined(separator: " | ") + " |"
        }
    }
}
