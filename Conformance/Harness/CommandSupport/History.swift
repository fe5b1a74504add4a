import Foundation
import SchedulerVocabulary

/// The nightly history: earlier stress reports in a folder.
package enum History {
    /// Every report in `folder` made before `current` and comparable with it (the same
    /// allocator and sanitizer), oldest first; nil when there is none or no such folder.
    /// `latest.json` is left out (it repeats a timestamped report), and so is any file that
    /// is not a stress report, with a note.
    package static func load(_ folder: String, before current: StressReport) -> [StressReport]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var reports: [(date: Date, report: StressReport)] = []
        var incomparable = 0
        let now = ReportTime.date(current.generatedAt) ?? Date()
        for name in names.sorted() where name.hasSuffix(".json") && name != "latest.json" {
            let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
            guard let report = try? ReportFiles.read(StressReport.self, at: path, what: "a history report") else {
                printError("stress compare: skipping '\(path)': not a stress report")
                continue
            }
            guard let made = ReportTime.date(report.generatedAt), made < now else { continue }
            guard report.environment.allocator == current.environment.allocator,
                report.environment.sanitizer == current.environment.sanitizer
            else {
                incomparable += 1
                continue
            }
            reports.append((made, report))
        }
        if incomparable > 0 {
            printError(
                "stress compare: \(incomparable) earlier report(s) used another allocator or sanitizer and are left out"
            )
        }
        return reports.isEmpty ? nil : reports.sorted { $0.date < $1.date }.map(\.report)
    }
}
