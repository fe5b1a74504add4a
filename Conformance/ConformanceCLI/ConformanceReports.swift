import ArgumentParser
import Foundation
import ProcessIsolation
import SchedulerConformance

/// The conformance reports: the folder checked before any rule runs, written atomically after.
enum ConformanceReports {
    static func prepare(_ folder: URL) throws {
        if let problem = ReportFolder.problem(with: folder) { throw ValidationError(problem) }
    }

    static func write(_ report: ConformanceReport, to folder: URL) throws {
        try report.writeJSON(to: folder.appendingPathComponent("conformance.json"))
        try report.writeJUnit(to: folder.appendingPathComponent("conformance.junit.xml"))
    }
}

