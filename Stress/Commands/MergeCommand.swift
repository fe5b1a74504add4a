import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the reports of every shard of one stress run into the report of the whole run.",
            discussion:
                """
                Writes <UTC timestamp>.json, latest.json and latest.junit.xml as `run` does. Exit status as for \
                `run`; 64 when the reports are not every shard of one run exactly once.
                """
        )

        @Argument(help: "The shards' reports (each shard's latest.json).")
        var reports: [String] = []

        @Option(help: "Folder for the merged reports.")
        var reportDir = "Reports/stress"

        func run() throws {
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let parts = try MergeInput.read(StressReport.self, paths: reports, what: "stress")
            let merged = try MergeInput.merge { () throws(MergeError) in
                try StressReport.merged(parts, gate: Toolkit.current.gate)
            }
            try Run.finish(merged, in: folder)
        }
    }
}
