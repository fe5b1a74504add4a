import Foundation

extension ConformanceReport {
    /// A readable rule × subject table, then one paragraph per failure with its hint.
    public func table() -> String {
        let symbols: [RuleResult.Status: String] = [
            .passed: "ok", .failed: "FAIL", .skipped: "-", .timeout: "TIME", .error: "ERR", .inconclusive: "INC",
            .guaranteed: "G",
        ]
        let width = max(4, subjects.map(\.name.count).max() ?? 4)
        let columns = subjects.map { String($0.name.prefix(width)) }
        var lines: [String] = []
        let header =
            "rule     level       "
            + columns.map { $0.padding(toLength: min(width, max($0.count, 4)), withPad: " ", startingAt: 0) }.joined(
                separator: " ")
        lines.append(header)
        let byRule = subjects.map { subject in Dictionary(uniqueKeysWithValues: subject.results.map { ($0.rule, $0) }) }
        for rule in rules {
            var line =
                rule.id.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                + rule.level.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
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
                problems.append(
                    """
                    \(subject.name) \(result.rule) [\(rule?.level.rawValue ?? "?")] \(result.status.rawValue): \
                    \(rule?.title ?? "")
                      observed: \(result.message ?? "no message")
                      if this fails, check: \(rule?.hint ?? "")
                    """)
            }
        }
        if !problems.isEmpty { lines.append("\n" + problems.joined(separator: "\n")) }
        lines.append("\n" + summary.sentence)
        return lines.joined(separator: "\n")
    }
}
