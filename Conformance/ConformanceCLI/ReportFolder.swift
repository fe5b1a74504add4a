import ArgumentParser
import Foundation
import SchedulerConformance

/// The report folder: checked before any rule runs, written atomically after.
enum ReportFolder {
    /// Creates `folder` if needed and proves it writable, so a bad path fails at once
    /// with one line instead of after the whole run.
    static func prepare(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let probe = folder.appendingPathComponent(".write-probe-\(ProcessInfo.processInfo.processIdentifier)")
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
        } catch {
            throw ValidationError("report folder '\(folder.path)' is not writable: \(error.localizedDescription)")
        }
    }

    static func write(_ report: ConformanceReport, to folder: URL) throws {
        try report.writeJSON(to: folder.appendingPathComponent("conformance.json"))
        try report.writeJUnit(to: folder.appendingPathComponent("conformance.junit.xml"))
    }
}

