import Foundation
import SchedulerConformance
import SchedulerMutants
import Schedulers
import Subprocess
import Testing

/// `make tsan` proves it can fail: the `conformance` command of the sanitizer build, run on a
/// test scheduler that counts its calls without a lock, must draw a data-race report naming that
/// scheduler, with the project's suppressions in force. A sanitizer run that stayed quiet
/// here would prove nothing about the rest.
@Suite(
    .enabled(
        if: ThreadSanitizerBuild.isEnabled,
        "needs make tsan's build: only ThreadSanitizer sees a race that loses nothing"))
struct ThreadSanitizerTests {
    @Test func anUnguardedTestSchedulerIsReportedAsARace() async throws {
        let folder = CommandTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The same options as this run (its suppressions above all), but the reports of the
        // command and its workers go to files of their own instead of `make tsan`'s folder,
        // which must stay empty.
        let inherited = (ProcessInfo.processInfo.environment["TSAN_OPTIONS"] ?? "")
            .split(separator: " ").filter { !$0.hasPrefix("log_path=") }.joined(separator: " ")
        let options = inherited + " log_path=" + folder.appendingPathComponent("tsan").path
        let outcome = try await CommandTests.conformance(
            ["run", "--subject", Mutants.raceCanary.name, "--rule", "THR-1", "--quiet", "--report-dir", folder.path],
            environment: .inherit.updating(["TSAN_OPTIONS": options])
        )
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("tsan.") }
        let reports = try logs.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
            .joined()
        // The sanitizer names the same race "data race" or, when it sees the Swift access
        // of the unguarded count first, "Swift access race".
        #expect(
            reports.contains("WARNING: ThreadSanitizer: data race")
                || reports.contains("WARNING: ThreadSanitizer: Swift access race"),
            "no race reported (exit \(outcome.status)):\n\(outcome.error)")
        #expect(
            reports.contains("FaultyVirtualMutant"), "the reports do not name the canary:\n\(reports.prefix(3_000))")
    }

    /// `make tsan TSAN_CANARY=1` races the canary in the test process itself, so the whole
    /// run fails: the proof by hand, kept out of the normal run.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["SCHEDULERS_TSAN_CANARY"] == "1", "set by make tsan TSAN_CANARY=1"))
    func theCanaryInThisProcessFailsTheRun() {
        let timing = Timing(
            mustHappen: .seconds(30), quietWindow: .milliseconds(100), lateness: .seconds(1), ruleTimeout: .seconds(120)
        )
        _ = ConformanceRunner.run(Mutants.raceCanary, rules: [RuleCatalogue.rule(.thr1)], timing: timing)
    }
}
