import Foundation
import SchedulerConformance
import SchedulerStress

/// The results as one static page people read: the conformance matrix, each cell linked to
/// what was observed and to its rule's rationale and hint; latency histograms and percentiles
/// per scenario × subject; the benchmarks' ratio to their baseline and allocations; and, given earlier
/// nightly reports, trends per metric. One self-contained HTML file: Chart.js (vendored,
/// MIT) and the data are inlined, so it opens from disk with no server.
public enum Dashboard {
    /// The page for whichever of the reports are given; `history` (oldest first) feeds the
    /// trends, with `stress` as their last point.
    public static func html(conformance: ConformanceReport?, stress: StressReport?, history: [StressReport]) throws
        -> String
    {
        var page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Scheduler behaviour</title>
            <style>\(style)</style>
            <script>window.dashboardErrors = []; window.addEventListener('error', e => window.dashboardErrors.push(String(e.message)));
            const consoleError = console.error; console.error = (...parts) => { window.dashboardErrors.push(parts.join(' ')); consoleError(...parts); };</script>
            </head><body data-charts="0" data-errors="0">
            <h1>Does this scheduler behave?</h1>

            """
        page += provenance(conformance: conformance, stress: stress)
        if let conformance { page += matrix(conformance) }
        if let stress { page += stressSections(stress, history: history) }
        // The rules' rationale and hints last: the matrix and the observations link down to them.
        if let conformance { page += rules(conformance) }
        if conformance == nil && stress == nil {
            page += "<p>No reports: run <code>make conformance</code> or <code>make stress</code> first.</p>\n"
        }
        let data = try chartData(stress: stress, history: history)
        page += """
            <ul id="errors"></ul>
            <script type="application/json" id="data">\(data)</script>
            <script>\(try chartLibrary())</script>
            <script>\(script)</script>
            </body></html>

            """
        return page
    }

    // MARK: - Sections

    private static func provenance(conformance: ConformanceReport?, stress: StressReport?) -> String {
        var rows: [(String, String)] = []
        if let conformance {
            let environment = conformance.environment
            rows.append(
                (
                    "conformance",
                    "\(conformance.generatedAt) · \(environment.os) · \(environment.cpuCount) CPUs \(environment.architecture ?? "") · Swift \(environment.swiftVersion) · commit \(environment.commit ?? "unknown")\(environment.sanitizer.map { " · sanitizer \($0)" } ?? "") · timing scale \(conformance.timingScale.map { String($0) } ?? "1")"
                ))
        }
        if let stress {
            let environment = stress.environment
            rows.append(
                (
                    "stress",
                    "\(stress.generatedAt) · \(environment.os) · \(environment.cpuCount) CPUs \(environment.architecture ?? "") · Swift \(environment.swiftVersion) · commit \(environment.commit ?? "unknown") · allocator \(environment.allocator ?? "unknown") · seed \(stress.seed)\(environment.sanitizer.map { " · sanitizer \($0)" } ?? "")"
                ))
        }
        return "<table class=\"provenance\">"
            + rows.map { "<tr><th>\($0.0)</th><td>\(escape($0.1))</td></tr>" }.joined() + "</table>\n"
    }

    private static func matrix(_ report: ConformanceReport) -> String {
        let summary = report.summary
        var html =
            "<h2>Conformance</h2>\n<p>\(summary.passed) passed, \(summary.failed) failed, \(summary.timeout) timed out, \(summary.error) errors, \(summary.inconclusive) inconclusive, \(summary.skipped) skipped; \(summary.gatingFailures) gating failures.</p>\n"
        html += "<div class=\"scroll\"><table class=\"matrix\"><thead><tr><th>rule</th>"
        html +=
            report.subjects.map { "<th class=\"subject\"><span>\(escape($0.name))</span></th>" }.joined()
            + "</tr></thead><tbody>\n"
        let results = report.subjects.map { subject in
            Dictionary(subject.results.map { ($0.rule, $0) }, uniquingKeysWith: { first, _ in first })
        }
        var observations: [String] = []
        for rule in report.rules {
            let id = escape(rule.id)
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
                    "<td class=\"\(status)\"><a href=\"\(target)\" title=\"\(escape("\(status)\(result.message.map { ": \($0)" } ?? "")"))\">\(symbol(status))</a></td>"
                if observed, let message = result.message {
                    observations.append(
                        "<li id=\"\(anchor)\"><b class=\"\(status)\">\(status)</b> \(escape(subject.name)) × <a href=\"#rule-\(id)\">\(id)</a>: \(escape(message))</li>"
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
                "<dt id=\"rule-\(escape(rule.id))\">\(escape(rule.id)) <small>\(rule.level.rawValue)</small> \(escape(rule.title))</dt><dd><p>\(escape(rule.rationale))</p><p><i>If it fails, check:</i> \(escape(rule.hint))</p></dd>\n"
        }
        return html + "</dl>\n"
    }

    private static func stressSections(_ report: StressReport, history: [StressReport]) -> String {
        var html =
            "<h2>Stress</h2>\n<p>\(report.summary.passed) passed, \(report.summary.failed) failed, \(report.summary.timeout) timed out, \(report.summary.error) errors, \(report.summary.skipped) skipped.</p>\n"
        html +=
            "<div class=\"scroll\"><table class=\"runs\"><thead><tr><th>scenario</th><th>subject</th><th>status</th><th>operations/s</th><th>p50 ns</th><th>p99 ns</th><th>allocations/op</th><th>ratio to baseline</th></tr></thead><tbody>\n"
        for run in report.runs where run.status != .skipped {
            let latency = run.latencyNanoseconds
            html +=
                "<tr><td>\(escape(run.scenario))</td><td>\(escape(run.subject))</td><td class=\"\(run.status.rawValue)\" title=\"\(escape(run.message ?? ""))\">\(run.status.rawValue)</td>"
            html +=
                "<td>\(format(run.throughputPerSecond))</td><td>\(latency.map { String($0.p50) } ?? "")</td><td>\(latency.map { String($0.p99) } ?? "")</td>"
            html +=
                "<td>\(run.allocations.map { format($0.perOperation) } ?? "")</td><td>\(run.ratioToBaseline.map { String(format: "%.2f", $0) } ?? "")</td></tr>\n"
        }
        html += "</tbody></table></div>\n"
        html += "<h3>Latency percentiles</h3>\n<div class=\"charts\" id=\"latency\"></div>\n"
        html += "<h3>Latency histograms</h3>\n<div class=\"charts\" id=\"histograms\"></div>\n"
        html +=
            "<h3>Benchmarks: cost relative to the bare baseline, and allocations</h3>\n<div class=\"charts\" id=\"benchmarks\"></div>\n"
        if !history.isEmpty {
            html +=
                "<h3>Trends over the last \(min(history.count + 1, trendRuns)) runs</h3>\n<div class=\"charts\" id=\"trends\"></div>\n"
        }
        return html
    }

    // MARK: - Chart data

    /// How many of the latest runs the trends show.
    package static let trendRuns = 60

    private struct Series: Encodable {
        package var name: String
        package var values: [Double?]
    }

    private struct Chart: Encodable {
        package var section: String
        package var title: String
        package var kind: String
        package var labels: [String]
        package var series: [Series]
        package var logarithmic: Bool
        package var unit: String
    }

    private static func chartData(stress: StressReport?, history: [StressReport]) throws -> String {
        var charts: [Chart] = []
        if let stress {
            let measured = stress.runs.filter { $0.status != .skipped }
            for scenario in ordered(measured.map(\.scenario)) {
                let runs = measured.filter { $0.scenario == scenario && $0.latencyNanoseconds != nil }
                guard !runs.isEmpty else { continue }
                charts.append(
                    Chart(
                        section: "latency", title: scenario, kind: "line",
                        labels: ["p50", "p90", "p99", "p99.9", "max"],
                        series: runs.map { run in
                            let latency = run.latencyNanoseconds!
                            return Series(
                                name: run.subject,
                                values: [latency.p50, latency.p90, latency.p99, latency.p999, latency.max].map {
                                    Double(max($0, 1))
                                })
                        },
                        logarithmic: true, unit: "ns"
                    ))
            }
            for scenario in ordered(measured.map(\.scenario)) {
                let runs = measured.filter {
                    $0.scenario == scenario && $0.latencyNanoseconds?.histogram?.isEmpty == false
                }
                guard !runs.isEmpty else { continue }
                // Shares of each subject's samples, so subjects with more samples do not tower.
                let bounds = Array(Set(runs.flatMap { $0.latencyNanoseconds!.histogram!.map(\.upToNanoseconds) }))
                    .sorted()
                charts.append(
                    Chart(
                        section: "histograms", title: scenario, kind: "bar",
                        labels: bounds.map { "≤ " + nanoseconds($0) },
                        series: runs.map { run in
                            let buckets = run.latencyNanoseconds!.histogram!
                            let total = Double(max(buckets.reduce(0) { $0 + $1.count }, 1))
                            let counts = Dictionary(buckets.map { ($0.upToNanoseconds, $0.count) }, uniquingKeysWith: +)
                            return Series(
                                name: run.subject, values: bounds.map { Double(counts[$0] ?? 0) / total * 100 })
                        },
                        logarithmic: false, unit: "% of samples"
                    ))
            }
            for scenario in ordered(measured.filter { $0.ratioToBaseline != nil }.map(\.scenario)) {
                let runs = measured.filter { $0.scenario == scenario && $0.ratioToBaseline != nil }
                charts.append(
                    Chart(
                        section: "benchmarks", title: "\(scenario): cost ÷ baseline", kind: "bar",
                        labels: runs.map(\.subject),
                        series: [Series(name: "ratio to baseline", values: runs.map(\.ratioToBaseline))],
                        logarithmic: false, unit: "×"))
                if runs.contains(where: { $0.allocations != nil }) {
                    charts.append(
                        Chart(
                            section: "benchmarks", title: "\(scenario): allocations per operation", kind: "bar",
                            labels: runs.map(\.subject),
                            series: [Series(name: "allocations", values: runs.map { $0.allocations?.perOperation })],
                            logarithmic: false, unit: "allocations"))
                }
            }
            if !history.isEmpty { charts += trends(Array((history + [stress]).suffix(trendRuns))) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // No `<` at all inside the script element the data sits in: `</script>` or `<!--` in a
        // subject's name must not end it. `\u003c` is the same character to JSON.
        return String(decoding: try encoder.encode(charts), as: UTF8.self).replacingOccurrences(
            of: "<", with: "\\u003c")
    }

    /// Per scenario: throughput and p99 of each subject over the runs; per benchmark, the
    /// ratio to its baseline.
    private static func trends(_ reports: [StressReport]) -> [Chart] {
        let labels = reports.map { String($0.generatedAt.prefix(16)).replacingOccurrences(of: "T", with: " ") }
        let keyed = reports.map { report in
            Dictionary(
                report.runs.map { ("\($0.scenario)|\($0.subject)", $0) }, uniquingKeysWith: { first, _ in first })
        }
        let runs = reports.flatMap(\.runs).filter { $0.status != .skipped }
        var charts: [Chart] = []
        for scenario in ordered(runs.map(\.scenario)) {
            let subjects = ordered(runs.filter { $0.scenario == scenario }.map(\.subject))
            func series(_ value: (StressRun) -> Double?) -> [Series] {
                subjects.map { subject in
                    Series(
                        name: subject,
                        values: keyed.map {
                            $0["\(scenario)|\(subject)"].flatMap { $0.status == .passed ? value($0) : nil }
                        })
                }
            }
            charts.append(
                Chart(
                    section: "trends", title: "\(scenario): operations per second", kind: "line", labels: labels,
                    series: series { $0.throughputPerSecond }, logarithmic: true, unit: "ops/s"))
            if runs.contains(where: { $0.scenario == scenario && $0.latencyNanoseconds != nil }) {
                charts.append(
                    Chart(
                        section: "trends", title: "\(scenario): p99 latency", kind: "line", labels: labels,
                        series: series { $0.latencyNanoseconds.map { Double($0.p99) } }, logarithmic: true, unit: "ns"))
            }
            if runs.contains(where: { $0.scenario == scenario && $0.ratioToBaseline != nil }) {
                charts.append(
                    Chart(
                        section: "trends", title: "\(scenario): ratio to baseline", kind: "line", labels: labels,
                        series: series(\.ratioToBaseline), logarithmic: false, unit: "×"))
            }
        }
        return charts
    }

    // MARK: - Helpers

    /// The vendored Chart.js, from this module's resources.
    private static func chartLibrary() throws -> String {
        guard let url = Bundle.module.url(forResource: "chart.min", withExtension: "js") else {
            throw DashboardError.missingAsset("chart.min.js")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    private static func ordered(_ names: [String]) -> [String] {
        var seen = Set<String>()
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
    private static func nanoseconds(_ value: UInt64) -> String {
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

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}h1{font-size:22px}h2{margin-top:32px;border-bottom:1px solid #ccc}
        .scroll{overflow-x:auto}table{border-collapse:collapse}td,th{padding:2px 6px;border:1px solid #ddd;text-align:left;white-space:nowrap}
        .matrix td{text-align:center}.matrix a{text-decoration:none;color:inherit;display:block}.subject span{writing-mode:vertical-rl}
        .passed{background:#dff5e1}.failed{background:#f9d6d5}.timeout,.error{background:#fbe3c4}.inconclusive{background:#fff6bf}
        .skipped,.none{color:#999}.guaranteed{background:#e4ecfa}.provenance th{background:#f4f4f4}.provenance td{white-space:normal}
        .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:16px}.charts canvas{max-height:300px}
        dt{font-weight:600;margin-top:8px}dd{margin-left:16px}#errors{color:#b00}
        """

    /// Draws every chart in the data; records each error on the page, where a test reads it.
    private static let script = """
        (function () {
          const charts = JSON.parse(document.getElementById('data').textContent);
          let drawn = 0;
          for (const chart of charts) {
            try {
              const host = document.getElementById(chart.section);
              if (!host) continue;
              const figure = document.createElement('figure');
              const canvas = document.createElement('canvas');
              figure.appendChild(canvas);
              host.appendChild(figure);
              new Chart(canvas, {
                type: chart.kind,
                data: { labels: chart.labels, datasets: chart.series.map((series, index) => ({
                  label: series.name, data: series.values, spanGaps: true,
                  borderColor: `hsl(${index * 67 % 360} 60% 45%)`, backgroundColor: `hsl(${index * 67 % 360} 60% 60%)`
                })) },
                options: { animation: false, responsive: true,
                  plugins: { title: { display: true, text: chart.title } },
                  scales: { y: { type: chart.logarithmic ? 'logarithmic' : 'linear', title: { display: true, text: chart.unit } } } }
              });
              drawn += 1;
            } catch (error) { window.dashboardErrors.push(String(error)); }
          }
          document.body.dataset.charts = String(drawn);
          const list = document.getElementById('errors');
          for (const message of window.dashboardErrors) { const item = document.createElement('li'); item.textContent = message; list.appendChild(item); }
          document.body.dataset.errors = String(window.dashboardErrors.length);
        })();
        """
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
