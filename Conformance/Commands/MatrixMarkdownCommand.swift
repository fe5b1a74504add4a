import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct MatrixMarkdown: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix-markdown",
            abstract:
                """
                Print a conformance.json report as a Markdown rule × subject matrix of its third-party subjects, \
                every deviation explained.
                """
        )

        @Argument(help: "The report to render.")
        var report = "Reports/conformance.json"

        @Option(
            help:
                """
                Replace what stands between <!-- matrix:begin --> and <!-- matrix:end --> in this file, instead of \
                printing.
                """
        )
        var into: String?

        @Flag(
            help:
                """
                Print the headline instead (a row per subject: rules passed, failures explained or not), between <!-- \
                headline:begin --> and <!-- headline:end --> with --into.
                """
        )
        var headline = false

        func run() throws {
            let decoded = try ReportFiles.read(ConformanceReport.self, at: report, what: "a conformance report")
            let explanations = Toolkit.current.explanations
            if headline {
                try GeneratedSection(name: "headline").publish(
                    MatrixDocument.headline(decoded, explanations: explanations), into: into)
            } else {
                try GeneratedSection(name: "matrix").publish(
                    MatrixDocument.render(decoded, explanations: explanations), into: into)
            }
        }
    }
}
