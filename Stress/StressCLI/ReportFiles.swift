import ArgumentParser
import Foundation
import ProcessIsolation
import SchedulerStress

/// The report folder: proven writable before any run, written atomically after.
enum ReportFiles {
    static func prepare(_ folder: URL) throws {
        if let problem = ReportFolder.problem(with: folder) { throw ValidationError(problem) }
    }

    /// Writes `<UTC timestamp>.json`, `latest.json` and `latest.junit.xml`, each through a
    /// temporary file and a rename, so a killed run never leaves a truncated report.
    static func write(_ report: StressReport, to folder: URL) throws -> [URL] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let json = try report.jsonData()
        let stamped = folder.appendingPathComponent("\(formatter.string(from: Date())).json")
        let latest = folder.appendingPathComponent("latest.json")
        let junit = folder.appendingPathComponent("latest.junit.xml")
        try json.write(to: stamped, options: .atomic)
        try json.write(to: latest, options: .atomic)
        try Data(StressJUnit.render(report).utf8).write(to: junit, options: .atomic)
        return [stamped, latest, junit]
    }
}

/// JUnit XML: one testcase per scenario × subject, classname = subject.
enum StressJUnit {
    static func render(_ report: StressReport) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = report.runs.filter { $0.status == .failed }.count
        let errors = report.runs.filter { [.error, .timeout].contains($0.status) }.count
        let skipped = report.runs.filter { $0.status == .skipped }.count
        xml += #"<testsuites name="scheduler-stress"><testsuite name="stress" tests="\#(report.runs.count)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skipped)">"# + "\n"
        for run in report.runs {
            xml += #"  <testcase classname="\#(escape(run.subject))" name="\#(escape(run.scenario))" time="\#(String(format: "%.3f", run.durationSeconds))""#
            let message = escape(run.message ?? "")
            switch run.status {
            case .passed: xml += "/>\n"; continue
            case .failed: xml += ">\n    <failure message=\"\(message)\">\(escape(run.reproduce ?? ""))</failure>\n"
            case .timeout: xml += ">\n    <error type=\"timeout\" message=\"\(message)\">\(escape(run.diagnostics ?? ""))</error>\n"
            case .error: xml += ">\n    <error type=\"error\" message=\"\(message)\">\(escape(run.diagnostics ?? ""))</error>\n"
            case .skipped, .inconclusive, .guaranteed: xml += ">\n    <skipped message=\"\(message)\"/>\n"
            }
            xml += "  </testcase>\n"
        }
        return xml + "</testsuite></testsuites>\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// The human-readable summary printed after a run.
enum StressTable {
    static func render(_ report: StressReport) -> String {
        var lines = ["scenario                 subject                        status    ops/s        p99 µs    allocs/op  ratio"]
        for run in report.runs where run.status != .skipped {
            let p99 = run.latencyNanoseconds.map { String(format: "%.1f", Double($0.p99) / 1_000) } ?? "-"
            let allocations = run.allocations.map { String(format: "%.2f", $0.perOperation) } ?? "-"
            let ratio = run.ratioToBaseline.map { String(format: "%.2f×", $0) } ?? ""
            lines.append([
                run.scenario.padding(toLength: 24, withPad: " ", startingAt: 0), run.subject.padding(toLength: 30, withPad: " ", startingAt: 0),
                run.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), String(format: "%-12.0f", run.throughputPerSecond),
                p99.padding(toLength: 9, withPad: " ", startingAt: 0), allocations.padding(toLength: 10, withPad: " ", startingAt: 0), ratio,
            ].joined(separator: " "))
            if run.status != .passed {
                lines.append("    \(run.message ?? "")")
                if let reproduce = run.reproduce { lines.append("    reproduce: \(reproduce)") }
            }
        }
        let summary = report.summary
        lines.append("\n\(summary.passed) passed, \(summary.failed) failed, \(summary.skipped) skipped, \(summary.timeout) timed out, \(summary.error) errors; allocator \(report.environment.allocator), seed \(report.seed)")
        return lines.joined(separator: "\n")
    }
}
