import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the conformance.json reports of every shard of one run into the report of the whole run.",
            discussion:
                """
                Exit status as for `run` (1 when a gating rule failed in any shard); 64 when the reports are not \
                every shard of one run exactly once.
                """
        )

        @Argument(help: "The shards' conformance.json reports.")
        var reports: [String] = []

        @Option(help: "Folder for the merged conformance.json and conformance.junit.xml.")
        var reportDir = "Reports"

        @Flag(help: "Print only the summary and the failures, not the whole table.")
        var quiet = false

        func run() throws {
            let started = ContinuousClock.now
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let parts = try MergeInput.read(ConformanceReport.self, paths: reports, what: "conformance")
            let merged = try MergeInput.merge { () throws(MergeError) in
                try ConformanceReport.merged(parts, gate: Toolkit.current.gate)
            }
            try Run.finish(merged, in: folder, quiet: quiet, started: started)
        }
    }
}
