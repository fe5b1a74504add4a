import Foundation
import SchedulerConformance
import Schedulers
import Testing
import XCTest

/// Checks `subject` against the rule catalogue from inside a test, reporting each rule that
/// did not pass as one test failure naming the rule, what was observed, and what to check.
///
/// Works under Swift Testing (failures are recorded as issues) and XCTest (as `XCTFail`).
/// Each failure is recorded as soon as its rule finishes, so a later crash loses nothing
/// already found. A scheduler that stops running work is reported as a `timeout` of the
/// rule that saw it, not as a failure; a tool built on `ConformanceTool.main`
/// (SchedulerHarness) adds every thread's stack, which this shared process cannot take.
/// Called from XCTest's main thread, main-thread rules are checked too; from elsewhere
/// they are skipped. Crashes cannot be contained in-process: build a tool on
/// `ConformanceTool.main` (SchedulerHarness) for a subject that may trap.
///
/// ```swift
/// func testMyScheduler() {  // XCTest
///     assertConformance(ConformanceSubject(name: "mine") { MyScheduler() })
/// }
/// ```
///
/// In Swift Testing, call the `async` variant with `await`: this one holds the calling
/// thread while the rules run, and a test body's thread is one of the cooperative pool's,
/// which on Linux are also Dispatch's global queues: a subject on them can wait a second for
/// a thread and be judged late or lossy.
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
    expectedDeviations: Set<RuleID> = [],
    file: StaticString = #filePath,
    line: UInt = #line,
    sourceLocation: SourceLocation = #_sourceLocation
) -> [RuleResult] {
    let recorder = IssueRecorder(
        subject: subject, rules: rules, failingLevels: failingLevels, expectedDeviations: expectedDeviations,
        file: file, line: line, sourceLocation: sourceLocation)
    // Off the main thread the rules' results arrive on this thread, in the test's context:
    // record each at once. On the main thread (XCTest) they arrive on the runner's thread;
    // XCTest takes failures from any thread, Swift Testing only in the test's task.
    let recordAtOnce = !Thread.isMainThread || Test.current == nil
    let results = ConformanceRunner.run(
        subject, rules: rules, timing: timing,
        progress: { result in
            if recordAtOnce { recorder.record(result) }
        })
    if !recordAtOnce { results.forEach(recorder.record) }
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
    expectedDeviations: Set<RuleID> = [],
    file: StaticString = #filePath,
    line: UInt = #line,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> [RuleResult] {
    let recorder = IssueRecorder(
        subject: subject, rules: rules, failingLevels: failingLevels, expectedDeviations: expectedDeviations,
        file: file, line: line, sourceLocation: sourceLocation)
    let (stream, continuation) = AsyncStream.makeStream(of: RuleResult.self)
    Thread {
        _ = ConformanceRunner.run(subject, rules: rules, timing: timing, progress: { continuation.yield($0) })
        continuation.finish()
    }.start()
    // Each issue is recorded here, in the test's task, which is how Swift Testing
    // attributes it, as soon as its rule finishes.
    var results: [RuleResult] = []
    for await result in stream {
        recorder.record(result)
        results.append(result)
    }
    return results
}

/// Records a result that fails a level in `failingLevels` and is not expected as one test
/// failure.
private struct IssueRecorder: Sendable {
    let subject: ConformanceSubject
    let rules: [RuleID: Rule]
    let failingLevels: Set<Rule.Level>
    let expectedDeviations: Set<RuleID>
    let file: StaticString
    let line: UInt
    let sourceLocation: SourceLocation

    init(
        subject: ConformanceSubject, rules: [Rule], failingLevels: Set<Rule.Level>, expectedDeviations: Set<RuleID>,
        file: StaticString, line: UInt, sourceLocation: SourceLocation
    ) {
        self.subject = subject
        self.rules = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0) })
        self.failingLevels = failingLevels
        self.expectedDeviations = expectedDeviations
        self.file = file
        self.line = line
        self.sourceLocation = sourceLocation
    }

    func record(_ result: RuleResult) {
        guard result.status.isFailure, let rule = rules[result.rule], failingLevels.contains(rule.level),
            !expectedDeviations.contains(rule.id)
        else { return }
        var message =
            """
            \(subject.name) \(rule.id) \(result.status.rawValue): \(rule.title). Observed: \
            \(result.message ?? "nothing"). If this fails, check: \(rule.hint)
            """
        if let stacks = result.threadDump { message += "\nEvery thread's stack:\n\(stacks)" }
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            XCTFail(message, file: file, line: line)
        }
    }
}
