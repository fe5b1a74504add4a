import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    /// A report in a trend service's format.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Write a stress report in Bencher's Metric Format (bmf) or as JMH's JSON results (jmh), for existing \
                trend services.
                """,
            discussion: "Only passing runs are exported. Exit status: 0, or 64 for bad usage or an unreadable report."
        )

        @Option(help: "bmf (Bencher Metric Format) or jmh (JMH's -rf json).")
        var format: String

        @Argument(help: "The report to export.")
        var report = "Reports/stress/latest.json"

        @Option(help: "Write here (atomically) instead of to standard output.")
        var output: String?

        func validate() throws {
            guard ["bmf", "jmh"].contains(format) else {
                throw ValidationError("--format must be bmf or jmh, got '\(format)'")
            }
            if let output {
                let folder = URL(fileURLWithPath: output).deletingLastPathComponent()
                if let problem = ReportFolder.problem(with: folder) { throw ValidationError(problem) }
            }
        }

        func run() throws {
            let stress = try ReportFiles.read(StressReport.self, at: report, what: "the stress report")
            let data = format == "bmf" ? try stress.bencherMetricFormat() : try stress.jmhJSON()
            if let output {
                try data.write(to: URL(fileURLWithPath: output), options: .atomic)
            } else {
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }
}
