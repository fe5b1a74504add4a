import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    /// Writes the static HTML dashboard from the reports present.
    struct DashboardCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dashboard",
            abstract:
                """
                Write a static HTML dashboard (one self-contained file) from the conformance, stress and mutation \
                reports present.
                """,
            discussion:
                """
                Reports named with a flag must exist; by default, what is missing is left out. Exit status: 0, or 64 \
                for bad usage.
                """
        )

        @Option(help: "The conformance report (default: Reports/conformance.json, if present).")
        var conformance: String?

        @Option(help: "The stress report (default: Reports/stress/latest.json, if present).")
        var stress: String?

        @Option(help: "A folder of earlier stress reports for the trends (default: Reports/stress, if present).")
        var history: String?

        @Option(help: "The mutation report (default: Reports/mutation/mutation.json, if present).")
        var mutation: String?

        @Option(help: "Where to write the page.")
        var output = "Reports/dashboard/index.html"

        func validate() throws {
            for path in [conformance, stress, mutation].compactMap({ $0 })
            where !FileManager.default.fileExists(atPath: path) {
                throw ValidationError("no report at '\(path)'")
            }
            if let history, !FileManager.default.fileExists(atPath: history) {
                throw ValidationError("no history folder at '\(history)'")
            }
            if let problem = ReportFolder.problem(with: URL(fileURLWithPath: output).deletingLastPathComponent()) {
                throw ValidationError(problem)
            }
        }

        func run() throws {
            let conformancePath = conformance ?? "Reports/conformance.json"
            let stressPath = stress ?? "Reports/stress/latest.json"
            let conformanceReport =
                FileManager.default.fileExists(atPath: conformancePath)
                ? try ReportFiles.read(ConformanceReport.self, at: conformancePath, what: "the conformance report")
                : nil
            let stressReport =
                FileManager.default.fileExists(atPath: stressPath)
                ? try ReportFiles.read(StressReport.self, at: stressPath, what: "the stress report") : nil
            let mutationPath = mutation ?? "Reports/mutation/mutation.json"
            let mutationReport =
                FileManager.default.fileExists(atPath: mutationPath)
                ? try ReportFiles.read(MutationReport.self, at: mutationPath, what: "the mutation report") : nil
            let earlier = stressReport.flatMap { History.load(history ?? "Reports/stress", before: $0) } ?? []
            guard conformanceReport != nil || stressReport != nil || mutationReport != nil else {
                throw ValidationError(
                    """
                    no reports to show: run `make conformance` or `make stress` first, or name them with \
                    --conformance and --stress
                    """
                )
            }
            let page = try Dashboard.html(
                conformance: conformanceReport, stress: stressReport, history: earlier, mutation: mutationReport)
            try Data(page.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            print(
                """
                dashboard: \(output) (\(conformanceReport == nil ? "no conformance report" : "conformance"), \
                \(stressReport == nil ? "no stress report" : "stress"), \
                \(mutationReport == nil ? "no mutation report" : "mutation"), \(earlier.count) earlier stress reports)
                """
            )
        }
    }
}
