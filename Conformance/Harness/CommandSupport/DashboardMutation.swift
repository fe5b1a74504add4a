import Foundation
import SchedulerVocabulary

/// The mutation analysis on the dashboard.
extension Dashboard {
    /// The score, per operator and per file, which rules kill most, and every survivor with
    /// its code and the rules that ran.
    static func mutationSection(_ report: MutationReport) -> String {
        let total = report.total
        var html =
            "<h2 id=\"mutation\">Mutation analysis of \(escape(report.target))</h2>\n<p>"
            + String(
                format:
                    """
                    Score %.1f %%: %d of %d scored mutants killed; %d survived (%d reached by no rule); %d declared \
                    equivalent; %d did not compile.
                    """,
                total.score, total.killed, total.mutants - total.equivalent - total.errors,
                total.survived + total.uncovered, total.uncovered, total.equivalent, report.notCompiled.count)
            + "</p>\n"
        for (title, groups) in [("operator", report.byOperator), ("file", report.byFile)] {
            html +=
                "<div class=\"scroll\"><table class=\"runs\"><thead><tr><th>\(title)</th><th>mutants</th>"
                + "<th>killed</th><th>survived</th><th>uncovered</th><th>equivalent</th><th>score</th>"
                + "</tr></thead><tbody>\n"
            for (name, tally) in groups {
                html +=
                    "<tr><td>\(escape(name))</td><td>\(tally.mutants)</td><td>\(tally.killed)</td>"
                    + "<td>\(tally.survived)</td><td>\(tally.uncovered)</td><td>\(tally.equivalent)</td>"
                    + "<td>\(String(format: "%.1f %%", tally.score))</td></tr>\n"
            }
            html += "</tbody></table></div>\n"
        }
        // The kill matrix, folded by rule: how many mutants each rule killed first.
        let killers = Dictionary(grouping: report.mutants.compactMap(\.killedBy), by: \.rule).mapValues(\.count)
            .sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        if !killers.isEmpty {
            html +=
                "<h3>Rules that killed first</h3>\n<p class=\"killers\">"
                + killers.map { "<a href=\"#rule-\(escape($0.key))\">\(escape($0.key))</a> \($0.value)" }.joined(
                    separator: " · ") + "</p>\n"
        }
        let survivors = report.mutants.filter { $0.verdict == .survived || $0.verdict == .uncovered }
        if !survivors.isEmpty {
            html += "<h3>Survivors</h3>\n<ul class=\"observations\">\n"
            for survivor in survivors {
                let ran =
                    survivor.verdict == .uncovered
                    ? "reached by no rule"
                    : "ran " + survivor.trials.prefix(10).map { "\($0.rule)@\($0.subject)" }.joined(separator: ", ")
                        + (survivor.trials.count > 10 ? " and \(survivor.trials.count - 10) more" : "")
                html +=
                    """
                    <li id=\"mutant-\(survivor.id)\"><b class=\"failed\">\(survivor.verdict.rawValue)</b> \
                    \(escape("\(survivor.file):\(survivor.line)")) <i>\(escape(survivor.operator))</i> in \
                    <code>\(escape(survivor.context))</code>: \(escape(survivor.change)); \(escape(ran))</li>\n
                    """
            }
            html += "</ul>\n"
        }
        for wrong in report.wronglyDeclared {
            html +=
                """
                <p><b class=\"failed\">declared equivalent but killed</b> \
                \(escape("#\(wrong.id) \(wrong.file):\(wrong.line) \(wrong.change)")): remove its declaration.</p>\n
                """
        }
        return html
    }
}
