import Foundation
import SchedulerConformance
import Schedulers
import Testing
import XCTest

/// Checks `subject` against the rule catalogue from inside a test, reporting each rule that
/// did not pass as one test failure naming the rule, what was observed, and what to check.
///
/// Works under Swift Testing (failures are recorded as issues) and XCTest (as `XCTFail`).
/// Called from XCTest's main thread, main-thread rules are checked too; from elsewhere
/// they are skipped. Crashes cannot be contained in-process: use the `conformance` command
/// for a subject that may trap.
///
/// ```swift
/// @Test func myScheduler() {
///     assertConformance(ConformanceSubject(name: "mine") { MyScheduler() })
/// }
/// ```
///
/// - Parameters:
///   - rules: the rules to run; the whole catalogue by default.
///   - failingLevels: levels whose failures fail the test; stochastic and optional rules
///     are reported only in the returned results by default.
///   - expectedDeviations: rule IDs the subject is known not to meet; they do not fail.
/// - Returns: every rule's result, for further assertions.
@discardableResult
public func assertConformance(
    _ subject: ConformanceSubject,
    rules: [Rule] = RuleCatalogue.all,
    timing: Timing = .calibrate(scale: 2),
    failingLevels: Set<Rule.Level> = [.required],
    expectedDeviations: Set<String> = [],
    file: StaticString = #filePath,
    line: UInt = #line,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [RuleResult] {
    let results = ConformanceRunner.run(subject, rules: rules, timing: timing)
    record(results, of: subject, rules: rules, failingLevels: failingLevels, expectedDeviations: expectedDeviations,
           file: file, line: line, sourceLocation: sourceLocation)
    return results
}

/// ``assertConformance(_:rules:timing:failingLevels:expectedDeviations:file:line:sourceLocation:)``
/// for async tests (call it with `await`). The rules block while they wait; this runs them
/// on a thread of their own, so this call does not hold a thread of the cooperative pool
/// that a scheduler built on Swift concurrency (tasks, actors) needs. Main-thread rules are
/// skipped, as from any thread but the main one.
@discardableResult
public func assertConformance(
    _ subject: ConformanceSubject,
    rules: [Rule] = RuleCatalogue.all,
    timing: Timing = .calibrate(scale: 2),
    failingLevels: Set<Rule.Level> = [.required],
    expectedDeviations: Set<String> = [],
    file: StaticString = #filePath,
    line: UInt = #line,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> [RuleResult] {
    let results = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: ConformanceRunner.run(subject, rules: rules, timing: timing)) }.start()
    }
    // Issues are recorded here, in the test's task, which is how Swift Testing attributes them.
    record(results, of: subject, rules: rules, failingLevels: failingLevels, expectedDeviations: expectedDeviations,
           file: file, line: line, sourceLocation: sourceLocation)
    return results
}

/// Reports every result that fails a level in `failingLevels` and is not expected.
private func record(
    _ results: [RuleResult], of subject: ConformanceSubject, rules: [Rule], failingLevels: Set<Rule.Level>,
    expectedDeviations: Set<String>, file: StaticString, line: UInt, sourceLocation: SourceLocation
) {
    let catalogue = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0) })
    for result in results where result.status.isFailure {
        guard let rule = catalogue[result.rule], failingLevels.contains(rule.level), !expectedDeviations.contains(rule.id) else { continue }
        let message = "\(subject.name) \(rule.id) \(result.status.rawValue): \(rule.title). Observed: \(result.message ?? "nothing"). If this fails, check: \(rule.hint)"
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            XCTFail(message, file: file, line: line)
        }
    }
}
