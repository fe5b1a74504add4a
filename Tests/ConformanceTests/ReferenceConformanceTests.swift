import Foundation
import SchedulerConformance
import Schedulers
import TestSupport
import Testing

@Suite(.nightly("the gate runs the same catalogue as make conformance, in release"))
struct ReferenceConformanceTests {
    /// Each reference subject's catalogue, run by the command as `make conformance` runs it:
    /// in a worker process of its own. In this process, other tests' work held the threads of
    /// Dispatch's pool, which the concurrent scheduler's timers run on, and TIM-12 rightly
    /// blames a tick held back by a wait for a pool thread, which no subject in a process of
    /// its own sees.
    @Test(arguments: ReferenceSubjects.all.map(\.name))
    func referenceSubjectPassesEveryRuleItClaims(_ name: String) async throws {
        let folder = CommandTests.temporaryFolder()
        let outcome = try await OwnThread.holding(.rules) {
            try await CommandTests.conformance([
                "--subject", name, "--timing-scale", "2", "--quiet", "--report-dir", folder.path,
            ])
        }
        // 0 when nothing gating failed, 1 when something did; anything else is no verdict.
        #expect(outcome.status == .exited(0) || outcome.status == .exited(1), "\(outcome.error)")
        let report = try JSONDecoder().decode(
            ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        let results = try #require(report.subjects.first { $0.name == name }).results
        // Inconclusive is not a failure: beside the rest of the tests a concurrent
        // scheduler's workers may never overlap; `make conformance` runs it on a quieter machine.
        for result in results where ![.passed, .skipped, .guaranteed, .inconclusive].contains(result.status) {
            if (result.level ?? .required) == .required {
                Issue.record("\(name) \(result.rule) \(result.status): \(result.message ?? "")")
            }
        }
        #expect(results.contains { $0.status == .passed })
    }
}
