import ArgumentParser
import Foundation
import SchedulerVocabulary

/// Where both commands' reports go: the folder is proven writable before any work, and
/// every file is written through a temporary file and a rename, so a killed run never
/// leaves a truncated report.
package enum ReportFiles {
    /// Fails with one line, before any work, when `folder` cannot be written.
    package static func prepare(_ folder: URL) throws {
        if let problem = ReportFolder.problem(with: folder) { throw ValidationError(problem) }
    }

    /// The report of type `T` at `path`.
    /// - Throws: `ValidationError` saying that `what` cannot be read there, and why.
    package static func read<T: Decodable>(_ type: T.Type, at path: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ValidationError("cannot read \(what) at '\(path)': \(error.localizedDescription)")
        }
    }

    /// Writes `conformance.json` and `conformance.junit.xml`.
    @discardableResult
    package static func write(_ report: ConformanceReport, to folder: URL) throws -> [URL] {
        try write(
            [
                ("conformance.json", try report.jsonData()),
                ("conformance.junit.xml", Data(JUnit(report).render().utf8)),
            ], to: folder)
    }

    /// Writes `<UTC timestamp>.json` (the nightly history), `latest.json` and `latest.junit.xml`.
    @discardableResult
    package static func write(_ report: StressReport, to folder: URL) throws -> [URL] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let json = try report.jsonData()
        return try write(
            [
                ("\(formatter.string(from: Date())).json", json),
                ("latest.json", json),
                ("latest.junit.xml", Data(JUnit(report).render().utf8)),
            ], to: folder)
    }

    private static func write(_ files: [(name: String, data: Data)], to folder: URL) throws -> [URL] {
        try files.map { file in
            let url = folder.appendingPathComponent(file.name)
            try file.data.write(to: url, options: .atomic)
            return url
        }
    }
}
