import Foundation

extension ConformanceReport {
    /// Writes the JSON report to `url` atomically (a temporary file, then a rename), so a
    /// run killed half-way never leaves a truncated report.
    public func writeJSON(to url: URL) throws {
        try jsonData().write(to: url, options: .atomic)
    }

    /// Writes the JUnit XML to `url` atomically.
    public func writeJUnit(to url: URL) throws {
        try Data(junitXML().utf8).write(to: url, options: .atomic)
    }

    /// JUnit XML: one testsuite per subject (classname = subject), one testcase per rule,
    /// with `failure`, `error` (for timeouts and errors) and `skipped` elements.
    public func junitXML() -> String {
        let titles = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0) })
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="scheduler-conformance" tests="\#(subjects.reduce(0) { $0 + $1.results.count })">"# + "\n"
        for subject in subjects {
            let count = { (status: RuleResult.Status) in subject.results.filter { $0.status == status }.count }
            let time = subject.results.reduce(0) { $0 + $1.durationSeconds }
            xml += #"  <testsuite name="\#(escape(subject.name))" tests="\#(subject.results.count)" failures="\#(count(.failed))" errors="\#(count(.error) + count(.timeout))" skipped="\#(count(.skipped))" time="\#(format(time))">"# + "\n"
            for result in subject.results {
                let title = titles[result.rule].map { "\(result.rule) \($0.title)" } ?? result.rule
                xml += #"    <testcase classname="\#(escape(subject.name))" name="\#(escape(title))" time="\#(format(result.durationSeconds))""#
                let message = escape(result.message ?? "")
                switch result.status {
                case .passed:
                    xml += "/>\n"
                    continue
                case .failed:
                    xml += ">\n      <failure message=\"\(message)\">\(escape(titles[result.rule].map { "If this fails, check: \($0.hint)" } ?? ""))</failure>\n"
                case .timeout:
                    xml += ">\n      <error type=\"timeout\" message=\"\(message)\">\(escape(result.threadDump ?? ""))</error>\n"
                case .error:
                    xml += ">\n      <error type=\"error\" message=\"\(message)\"/>\n"
                case .skipped:
                    xml += ">\n      <skipped message=\"\(message)\"/>\n"
                case .inconclusive:
                    xml += ">\n      <skipped message=\"inconclusive: \(message)\"/>\n"
                case .guaranteed:
                    xml += ">\n      <system-out>guaranteed by the protocol: \(message)</system-out>\n"
                }
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// A readable rule × subject table, then one paragraph per failure with its hint.
    public func table() -> String {
        let symbols: [RuleResult.Status: String] = [
            .passed: "ok", .failed: "FAIL", .skipped: "-", .timeout: "TIME", .error: "ERR", .inconclusive: "INC", .guaranteed: "G",
        ]
        let width = max(4, subjects.map(\.name.count).max() ?? 4)
        let columns = subjects.map { String($0.name.prefix(width)) }
        var lines: [String] = []
        let header = "rule     level       " + columns.map { $0.padding(toLength: min(width, max($0.count, 4)), withPad: " ", startingAt: 0) }.joined(separator: " ")
        lines.append(header)
        let byRule = subjects.map { subject in Dictionary(uniqueKeysWithValues: subject.results.map { ($0.rule, $0) }) }
        for rule in rules {
            var line = rule.id.padding(toLength: 9, withPad: " ", startingAt: 0) + rule.level.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            for (index, column) in columns.enumerated() {
                let cell = byRule[index][rule.id].map { symbols[$0.status]! } ?? ""
                line += cell.padding(toLength: min(width, max(column.count, 4)), withPad: " ", startingAt: 0) + " "
            }
            lines.append(line)
        }
        let hints = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0) })
        var problems: [String] = []
        for subject in subjects {
            for result in subject.results where result.status.isFailure {
                let rule = hints[result.rule]
                problems.append("""
                \(subject.name) \(result.rule) [\(rule?.level.rawValue ?? "?")] \(result.status.rawValue): \(rule?.title ?? "")
                  observed: \(result.message ?? "no message")
                  if this fails, check: \(rule?.hint ?? "")
                """)
            }
        }
        if !problems.isEmpty { lines.append("\n" + problems.joined(separator: "\n")) }
        lines.append("""

        \(summary.passed) passed, \(summary.failed) failed, \(summary.skipped) skipped, \(summary.timeout) timed out, \(summary.error) errors, \(summary.inconclusive) inconclusive, \(summary.guaranteed) guaranteed by the protocol; \(summary.gatingFailures) gating failures
        """)
        return lines.joined(separator: "\n")
    }
}

private func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "\n", "\t": out.unicodeScalars.append(scalar)
        case _ where scalar.value < 0x20: out += " "
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

private func format(_ seconds: Double) -> String {
    String(format: "%.3f", seconds)
}
