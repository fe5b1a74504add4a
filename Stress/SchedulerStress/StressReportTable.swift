import Foundation
import SchedulerVocabulary

extension StressReport {
    /// A readable table of the runs, each one that did not pass followed by its message and
    /// how to reproduce it, then the summary: what `stress run` prints.
    public func table() -> String {
        let report = self
        var lines = [
            "scenario                 subject                        status    ops/s        p99 µs    allocs/op  ratio"
        ]
        for run in report.runs where run.status != .skipped {
            let p99 = run.latencyNanoseconds.map { String(format: "%.1f", Double($0.p99) / 1_000) } ?? "-"
            let allocations = run.allocations.map { String(format: "%.2f", $0.perOperation) } ?? "-"
            let ratio = run.ratioToBaseline.map { String(format: "%.2f×", $0) } ?? ""
            lines.append(
                [
                    run.scenario.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0),
                    run.subject.padding(toLength: 30, withPad: " ", startingAt: 0),
                    run.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
                    String(format: "%-12.0f", run.throughputPerSecond),
                    p99.padding(toLength: 9, withPad: " ", startingAt: 0),
                    allocations.padding(toLength: 10, withPad: " ", startingAt: 0), ratio,
                ].joined(separator: " "))
            if run.status != .passed {
                lines.append("    \(run.message ?? "")")
                if let reproduce = run.reproduce { lines.append("    reproduce: \(reproduce)") }
            }
        }
        let summary = report.summary
        lines.append(
            "\n\(summary.sentence); allocator \(report.environment.allocator ?? "unknown"), seed \(report.seed)"
        )
        return lines.joined(separator: "\n")
    }
}
