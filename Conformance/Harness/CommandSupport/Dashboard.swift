import Foundation
import SchedulerVocabulary

/// The results as one static page people read: the conformance matrix, each cell linked to
/// what was observed and to its rule's rationale and hint; latency histograms and percentiles
/// per scenario × subject; the benchmarks' ratio to their baseline and allocations; and, given earlier
/// nightly reports, trends per metric. One self-contained HTML file: Chart.js (vendored,
/// MIT) and the data are inlined, so it opens from disk with no server.
public enum Dashboard {
    /// The page for whichever of the reports are given; `history` (oldest first) feeds the
    /// trends, with `stress` as their last point.
    public static func html(
        conformance: ConformanceReport?, stress: StressReport?, history: [StressReport],
        mutation: MutationReport? = nil
    ) throws -> String {
        var body = provenance(conformance: conformance, stress: stress, mutation: mutation)
        if let conformance { body += matrix(conformance) }
        if let mutation { body += mutationSection(mutation) }
        if let stress { body += stressSections(stress, history: history) }
        // The rules' rationale and hints last: the matrix and the observations link down to them.
        if let conformance { body += rules(conformance) }
        if conformance == nil && stress == nil && mutation == nil {
            body += "<p>No reports: run <code>make conformance</code> or <code>make stress</code> first.</p>\n"
        }
        return try fill(
            asset("dashboard", "html"),
            [
                "style": try asset("dashboard", "css"), "body": body,
                "data": try chartData(stress: stress, history: history), "chartjs": try asset("chart.min", "js"),
                "script": try asset("dashboard", "js"),
            ])
    }

    /// `template` with each `{{name}}` replaced by `values[name]`, in one pass: a value that
    /// happens to contain `{{…}}` (a subject's name, say) is never filled in again.
    private static func fill(_ template: String, _ values: [String: String]) throws -> String {
        var page = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{"), let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex)
        {
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else { throw DashboardError.missingAsset("a value for {{\(name)}}") }
            page += rest[..<open.lowerBound] + value
            rest = rest[close.upperBound...]
        }
        return page + rest
    }

    // MARK: - Sections

    private static func provenance(conformance: ConformanceReport?, stress: StressReport?, mutation: MutationReport?)
        -> String
    {
        var rows: [(String, String)] = []
        if let mutation {
            let environment = mutation.environment
            rows.append(
                (
                    "mutation",
                    """
                    \(mutation.generatedAt) · target \(mutation.target) (\(mutation.configuration)) · \
                    \(environment.cpuCount) CPUs · Swift \(environment.swiftVersion) · commit \
                    \(environment.commit ?? "unknown")\(mutation.since.map { " · changes since \($0)" } ?? "")
                    """
                ))
        }
        if let conformance {
            let environment = conformance.environment
            rows.append(
                (
                    "conformance",
                    """
                    \(conformance.generatedAt) · \(environment.os) · \(environment.cpuCount) CPUs \
                    \(environment.architecture ?? "") · Swift \(environment.swiftVersion) · commit \
                    \(environment.commit ?? "unknown")\(environment.sanitizer.map { " · sanitizer \($0)" } ?? "") · \
                    timing scale \(conformance.timingScale.map { String($0) } ?? "1")
                    """
                ))
        }
        if let stress {
            let environment = stress.environment
            rows.append(
                (
                    "stress",
                    """
                    \(stress.generatedAt) · \(environment.os) · \(environment.cpuCount) CPUs \
                    \(environment.architecture ?? "") · Swift \(environment.swiftVersion) · commit \
                    \(environment.commit ?? "unknown") · allocator \(environment.allocator ?? "unknown") · seed \
                    \(stress.seed)\(environment.sanitizer.map { " · sanitizer \($0)" } ?? "")
                    """
                ))
        }
        return "<table class=\"provenance\">"
            + rows.map { "<tr><th>\($0.0)</th><td>\(escape($0.1))</td></tr>" }.joined() + "</table>\n"
    }

    private static func matrix(_ report: ConformanceReport) -> String {
        let summary = report.summary
        var html =
            "<h2>Conformance</h2>\n<p>\(summary.sentence).</p>\n"
        html += "<div class=\"scroll\"><table class=\"matrix\"><thead><tr><th>rule</th>"
        html +=
            report.subjects.map { "<th class=\"subject\"><span>\(escape($0.name))</span></th>" }.joined()
            + "</tr></thead><tbody>\n"
        let results = report.subjects.map { subject in
            Dictionary(subject.results.map { ($0.rule, $0) }, uniquingKeysWith: { first, _ in first })
        }
        var observations: [String] = []
        for rule in report.rules {
            let id = escape(rule.id.rawValue)
            html += "<tr><th><a href=\"#rule-\(id)\">\(id)</a> \(escape(rule.title))</th>"
            for (index, subject) in report.subjects.enumerated() {
                guard let result = results[index][rule.id] else {
                    html += "<td class=\"none\"></td>"
                    continue
                }
                let status = result.status.rawValue
                let anchor = "obs-\(slug(subject.name))-\(id)"
                // Observations are listed for results with a message, skips excepted.
                let observed = result.message != nil && result.status != .skipped
                let target = observed ? "#\(anchor)" : "#rule-\(id)"
                html +=
                    """
                    <td class=\"\(status)\"><a href=\"\(target)\" \
                    title=\"\(escape("\(status)\(result.message.map { ": \($0)" } ?? "")"))\">\(symbol(status))</a></td>
                    """
                if observed, let message = result.message {
                    observations.append(
                        """
                        <li id=\"\(anchor)\"><b class=\"\(status)\">\(status)</b> \(escape(subject.name)) × <a \
                        href=\"#rule-\(id)\">\(id)</a>: \(escape(message))</li>
                        """
                    )
                }
            }
            html += "</tr>\n"
        }
        html += "</tbody></table></div>\n"
        if !observations.isEmpty {
            html +=
                "<h3>What was observed</h3>\n<ul class=\"observations\">\n" + observations.joined(separator: "\n")
                + "\n</ul>\n"
        }
        return html
    }

    private static func rules(_ report: ConformanceReport) -> String {
        var html = "<h2>Rules</h2>\n<dl class=\"rules\">\n"
        for rule in report.rules {
            html +=
                """
                <dt id=\"rule-\(escape(rule.id.rawValue))\">\(escape(rule.id.rawValue)) \
                <small>\(rule.level.rawValue)</small> \
                \(escape(rule.title))</dt><dd><p>\(escape(rule.rationale))</p><p><i>If it fails, check:</i> \
                \(escape(rule.hint))</p></dd>\n
                """
        }
        return html + "</dl>\n"
    }

    private static func stressSections(_ report: StressReport, history: [StressReport]) -> String {
        var html =
            "<h2>Stress</h2>\n<p>\(report.summary.sentence).</p>\n"
        html +=
            """
            <div class=\"scroll\"><table \
            class=\"runs\"><thead><tr><th>scenario</th><th>subject</th><th>status</th><th>operations/s</th><th>p50 \
            ns</th><th>p99 ns</th><th>allocations/op</th><th>ratio to baseline</th></tr></thead><tbody>\n
            """
        for run in report.runs where run.status != .skipped {
            let latency = run.latencyNanoseconds
            html +=
                """
                <tr><td>\(escape(run.scenario.rawValue))</td><td>\(escape(run.subject))</td><td \
                class=\"\(run.status.rawValue)\" title=\"\(escape(run.message ?? ""))\">\(run.status.rawValue)</td>
                """
            html +=
                "<td>\(format(run.throughputPerSecond))</td><td>\(latency.map { String($0.p50) } ?? "")</td>"
                + "<td>\(latency.map { String($0.p99) } ?? "")</td>"
            html +=
                "<td>\(run.allocations.map { format($0.perOperation) } ?? "")</td>"
                + "<td>\(run.ratioToBaseline.map { String(format: "%.2f", $0) } ?? "")</td></tr>\n"
        }
        html += "</tbody></table></div>\n"
        html += "<h3>Latency percentiles</h3>\n<div class=\"charts\" id=\"latency\"></div>\n"
        html += "<h3>Latency histograms</h3>\n<div class=\"charts\" id=\"histograms\"></div>\n"
        html +=
            """
            <h3>Benchmarks: cost relative to the bare baseline, and allocations</h3>\n<div class=\"charts\" \
            id=\"benchmarks\"></div>\n
            """
        if report.runs.contains(where: { $0.memory != nil }) {
            html +=
                """
                <h3>Soak: the heap and resident memory as the actions add up (a leak raises the floor)</h3>\n<div \
                class=\"charts\" id=\"soak\"></div>\n
                """
        }
        if report.runs.contains(where: { $0.growth != nil }) {
            html +=
                """
                <h3>Growth: cost per action as the work queued grows (k in time ∝ nᵏ)</h3>\n<div class=\"charts\" \
                id=\"growth\"></div>\n
                """
        }
        if !history.isEmpty {
            html +=
                """
                <h3>Trends over the last \(min(history.count + 1, trendRuns)) runs</h3>\n<div class=\"charts\" \
                id=\"trends\"></div>\n
                """
        }
        return html
    }

    // MARK: - Helpers

    /// A file of this module's resources: the page's template, style and script, and the
    /// vendored Chart.js.
    private static func asset(_ name: String, _ type: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: type) else {
            throw DashboardError.missingAsset("\(name).\(type)")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func ordered<Name: Hashable>(_ names: [Name]) -> [Name] {
        var seen = Set<Name>()
        return names.filter { seen.insert($0).inserted }
    }

    private static func symbol(_ status: String) -> String {
        [
            "passed": "✔", "failed": "✘", "timeout": "⌛", "error": "!", "skipped": "·", "inconclusive": "?",
            "guaranteed": "≡",
        ][status] ?? status
    }

    private static func slug(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    /// A bucket bound as people read it: ns, µs, ms or s.
    static func nanoseconds(_ value: UInt64) -> String {
        switch value {
        case ..<1_000: "\(value) ns"
        case ..<1_000_000: format(Double(value) / 1e3) + " µs"
        case ..<1_000_000_000: format(Double(value) / 1e6) + " ms"
        default: format(Double(value) / 1e9) + " s"
        }
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value)
    }

    /// Text safe inside HTML elements and attributes.
    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

}

/// Why the dashboard could not be written.
public enum DashboardError: Error, CustomStringConvertible {
    /// A file the package ships is missing from the build.
    case missingAsset(String)

    public var description: String {
        switch self {
        case .missingAsset(let name): "the dashboard's asset \(name) is missing from this build"
        }
    }
}
