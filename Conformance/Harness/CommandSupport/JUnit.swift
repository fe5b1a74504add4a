import Foundation
import SchedulerVocabulary

/// JUnit XML, the one format CI systems all read: the single writer behind both commands'
/// `.junit.xml` reports.
package struct JUnit {
    /// How one test case ended.
    package enum Outcome {
        case passed
        case failure(message: String, details: String)
        case error(type: String, message: String, details: String)
        case skipped(message: String)
        /// Passed in the sense of not failing, with a note for readers (a guaranteed rule).
        case note(String)
    }

    package struct TestCase {
        package var classname: String
        package var name: String
        package var seconds: Double
        package var outcome: Outcome
    }

    package struct Suite {
        package var name: String
        package var cases: [TestCase]
    }

    package var name: String
    package var suites: [Suite]

    /// The document: one `testsuite` per suite with its counts, one `testcase` per case.
    package func render() -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="\#(escape(name))" tests="\#(suites.reduce(0) { $0 + $1.cases.count })">"# + "\n"
        for suite in suites {
            func count(_ matches: (Outcome) -> Bool) -> Int { suite.cases.filter { matches($0.outcome) }.count }
            let failures = count { if case .failure = $0 { true } else { false } }
            let errors = count { if case .error = $0 { true } else { false } }
            let skipped = count { if case .skipped = $0 { true } else { false } }
            let time = suite.cases.reduce(0) { $0 + $1.seconds }
            xml +=
                #"  <testsuite name="\#(escape(suite.name))" tests="\#(suite.cases.count)" failures="\#(failures)""#
                + #" errors="\#(errors)" skipped="\#(skipped)" time="\#(format(time))">"#
                + "\n"
            for test in suite.cases {
                xml +=
                    #"    <testcase classname="\#(escape(test.classname))" name="\#(escape(test.name))""#
                    + #" time="\#(format(test.seconds))""#
                switch test.outcome {
                case .passed:
                    xml += "/>\n"
                    continue
                case .failure(let message, let details):
                    xml += ">\n      <failure message=\"\(escape(message))\">\(escape(details))</failure>\n"
                case .error(let type, let message, let details):
                    xml +=
                        """
                        >\n      <error type=\"\(escape(type))\" \
                        message=\"\(escape(message))\">\(escape(details))</error>\n
                        """
                case .skipped(let message): xml += ">\n      <skipped message=\"\(escape(message))\"/>\n"
                case .note(let text): xml += ">\n      <system-out>\(escape(text))</system-out>\n"
                }
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// A conformance report: one suite per subject, one case per rule.
    package init(_ report: ConformanceReport) {
        let rules = Dictionary(uniqueKeysWithValues: report.rules.map { ($0.id, $0) })
        name = "scheduler-conformance"
        suites = report.subjects.map { subject in
            Suite(
                name: subject.name,
                cases: subject.results.map { result in
                    let rule = rules[result.rule]
                    let message = result.message ?? ""
                    let outcome: Outcome =
                        switch result.status {
                        case .passed: .passed
                        case .failed:
                            .failure(message: message, details: rule.map { "If this fails, check: \($0.hint)" } ?? "")
                        case .timeout: .error(type: "timeout", message: message, details: result.threadDump ?? "")
                        case .error: .error(type: "error", message: message, details: result.threadDump ?? "")
                        case .skipped: .skipped(message: message)
                        case .inconclusive: .skipped(message: "inconclusive: \(message)")
                        case .guaranteed: .note("guaranteed by the protocol: \(message)")
                        }
                    return TestCase(
                        classname: subject.name,
                        name: rule.map { "\(result.rule) \($0.title)" } ?? result.rule.rawValue,
                        seconds: result.durationSeconds, outcome: outcome)
                })
        }
    }

    /// A stress report: one suite, one case per scenario × subject.
    package init(_ report: StressReport) {
        name = "scheduler-stress"
        suites = [
            Suite(
                name: "stress",
                cases: report.runs.map { run in
                    let message = run.message ?? ""
                    let outcome: Outcome =
                        switch run.status {
                        case .passed: .passed
                        case .failed: .failure(message: message, details: run.reproduce ?? "")
                        case .timeout: .error(type: "timeout", message: message, details: run.diagnostics ?? "")
                        case .error: .error(type: "error", message: message, details: run.diagnostics ?? "")
                        case .skipped, .inconclusive, .guaranteed: .skipped(message: message)
                        }
                    return TestCase(
                        classname: run.subject, name: run.scenario.rawValue, seconds: run.durationSeconds,
                        outcome: outcome)
                })
        ]
    }

    /// Text safe in an attribute or element: markup escaped, control characters but newline
    /// and tab (which XML 1.0 forbids) replaced by spaces.
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

    private func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}
