import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerReporting

extension ConformanceCommand {
    struct MatrixMarkdown: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix-markdown",
            abstract:
                "Print a conformance.json report as a Markdown rule × subject matrix of its third-party subjects, every deviation explained."
        )

        @Argument(help: "The report to render.")
        var report = "Reports/conformance.json"

        @Option(
            help:
                "Replace what stands between <!-- matrix:begin --> and <!-- matrix:end --> in this file, instead of printing."
        )
        var into: String?

        func run() throws {
            let decoded = try ReportFiles.read(ConformanceReport.self, at: report, what: "a conformance report")
            try GeneratedSection(name: "matrix").publish(
                MatrixDocument.render(decoded, explanations: Toolkit.current.explanations), into: into)
        }
    }
}
