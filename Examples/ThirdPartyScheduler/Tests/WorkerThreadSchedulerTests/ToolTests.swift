import Foundation
import SchedulerConformance
import SchedulerVocabulary
import Testing

/// The package's own `worker-thread-conformance` executable: the suite's whole tool, with
/// process isolation, for this package's subjects.
@Suite(.serialized) struct ToolTests {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("worker-thread-conformance")

    /// Runs the tool to completion and returns its exit status and the report it wrote.
    static func conformance(_ arguments: [String]) throws -> (status: Int32, report: ConformanceReport) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worker-thread-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["run", "--report-dir", folder.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let data = try Data(contentsOf: folder.appendingPathComponent("conformance.json"))
        return (process.terminationStatus, try JSONDecoder().decode(ConformanceReport.self, from: data))
    }

    /// Two categories, not the whole catalogue: `make test-example` runs the tool over all of
    /// it and validates that report, and `ConformanceTests` judges every rule in-process.
    @Test func checksTheSchedulerAndWritesAThirdPartyReport() throws {
        let (status, report) = try Self.conformance(["--category", "ORD,EXE"])
        #expect(status == 0)
        #expect(
            report.subjects.map(\.name) == ["worker-thread", "worker-thread-executor"],
            "the broken variants run only when named")
        let selected = RuleCatalogue.all.filter { [.ordering, .executor].contains($0.category) }.count
        #expect(report.subjects.allSatisfy { $0.origin == .thirdParty && $0.results.count == selected })
        #expect(report.subjects[1].kind == .executor)
        #expect(report.summary.failed == 0 && report.summary.passed > 0)
    }

    /// The deadlocking variant's timeouts, as an adopter sees them through the tool: each
    /// names the call that never returned and the thread holding the lock it waits on. The
    /// bounds are a fifth of the calibrated ones (2 s, not 10 s, for each thread that never
    /// returns): the verdicts are the same.
    @Test func aDeadlockIsATimeoutNamingTheStuckCallAndTheLockHolder() throws {
        let (status, report) = try Self.conformance([
            "--subject", "worker-thread-locked-while-running", "--category", "ORD", "--timing-scale", "0.2",
        ])
        #expect(status == 0, "a mutant's failures are expected: they never fail the run")
        let results = report.subjects[0].results
        let ordering = RuleCatalogue.all.filter { $0.category == .ordering }
        #expect(results.map(\.rule) == ordering.map(\.id), "every rule has a result")
        let timeouts = results.filter { $0.status == .timeout }
        // ORD-1 schedules from the rule's own thread behind a held action; ORD-2, from
        // producer threads.
        #expect(
            Set([RuleID.ord1, .ord2]).isSubset(of: timeouts.map(\.rule)), "\(results.map { "\($0.rule) \($0.status)" })"
        )
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
            #expect(timeouts.allSatisfy { $0.threadDump?.contains("Thread") == true }, "no stacks in the timeout")
            for timeout in timeouts {
                let message = timeout.message ?? ""
                #expect(
                    message.contains("stuck in `LockedWhileRunning.schedule(_:)` (Subjects.swift:53)"), "\(message)")
                #if os(Linux)
                    // The holder is whichever thread is inside an action under the lock: the
                    // worker, or a rule's own thread that the action runs on; it is named either way.
                    let holder = #/waiting on a lock held by thread "[^"]+" in `closure #1 in closure #1 in /#
                    #expect(
                        message.contains(holder)
                            && message.contains(
                                "closure #1 in LockedWhileRunning.schedule(_:)` (Subjects.swift:54)"),
                        "\(message)")
                #endif
            }
            let first = timeouts.first { $0.rule == .ord1 }?.message ?? ""
            #expect(first.contains("called from the rule's thread (blocked)"), "\(first)")
        }
        // Swift's Mutex traps on a recursive lock: the rules that nest die instead, and the
        // run goes on past both kinds of death.
        #expect(results.contains { $0.status == .error && $0.message?.contains("Recursive call to lock") == true })
    }

    @Test func aTrapIsAnErrorWithItsMessageAndNothingElseIsLost() throws {
        let (status, report) = try Self.conformance([
            "--subject", "worker-thread-traps-when-nested", "--category", "ORD",
        ])
        #expect(status == 0)
        let results = report.subjects[0].results
        #expect(results.count == RuleCatalogue.all.filter { $0.category == .ordering }.count)
        let errors = results.filter { $0.status == .error }
        #expect(errors.contains { $0.rule == .ord4 }, "\(results.map { "\($0.rule) \($0.status)" })")
        #expect(
            errors.allSatisfy {
                $0.message?.contains("Precondition failed: schedule(_:) called from inside an action") == true
            }, "\(errors.map { $0.message ?? "" })")
        // A rule that races threads may be inconclusive on a busy machine (a shared CI
        // runner); never failed.
        #expect(
            results.filter { $0.status != .error }.allSatisfy { $0.status == .passed || $0.status == .inconclusive },
            "the rules that do not nest still pass: \(results.map { "\($0.rule) \($0.status)" })")
        #expect(
            results.last.map { $0.status == .passed || $0.status == .inconclusive } == true,
            "the run went on after the trap")
    }

    @Test func aRunawayRecursionIsAnErrorNamingWhereItRanAway() throws {
        let (status, report) = try Self.conformance([
            "--subject", "worker-thread-recurses-forever", "--rule", "ORD-1,ORD-4",
        ])
        #expect(status == 0)
        let results = report.subjects[0].results
        #expect(results.map(\.rule) == [.ord1, .ord4], "the run went on after the first death")
        for result in results {
            #expect(result.status == .error)
            // A stack overflow leaves the backtracer no stack to run on: gdb, running the
            // rule again, names the frame and the recursion.
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { continue }
            #expect(
                result.message?.contains("crashed in RecursesForever.schedule(_:) at Subjects.swift:") == true
                    && result.message?.contains("a runaway recursion") == true, "\(result.message ?? "")")
        }
    }
}

/// The tool's mutation analysis, in a suite of its own: its build of the mutated copy takes
/// most of a minute and a half, which the tool tests above (serialised among themselves, each
/// a whole run of the tool) spend beside it instead of after it. Part of the nightly tier
/// (`SCHEDULERS_TIER=nightly`, as `make nightly` sets it), with the package's own `make
/// mutate`: 148 s of the gate's, most of it that build.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["SCHEDULERS_TIER"] == "nightly",
        "nightly tier (SCHEDULERS_TIER=nightly): builds a mutated copy of the package"))
struct MutationToolTests {
    /// Runs `mutate` on this package's own scheduler file, with one operator and the ordering
    /// rules only, so that it fits in a test (its scratch build lives in `.build-mutate`). The
    /// cancellation rules too cost 23 s more, in the test that sets the example's time: a
    /// survivor runs every rule, CAN-3's thousands of races among them.
    @Test func mutationAnalysisReportsTheInvisibleCounterAndKillsAHangByTimeout() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worker-thread-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let categories = ["--subject", "worker-thread", "--category", "ORD"]
        let process = Process()
        process.executableURL = ToolTests.executable
        process.arguments =
            [
                "mutate", "--package", package.path, "--target", "WorkerThreadScheduler", "--configuration", "debug",
                "--files", "WorkerThreadScheduler.swift", "--operator", "remove-call", "--mutant-timeout", "1",
                "--report-dir", folder.path,
            ] + categories
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let report = try JSONDecoder().decode(
            MutationReport.self, from: Data(contentsOf: folder.appendingPathComponent("mutation.json")))
        func mutant(in context: String, removing code: String) -> MutationReport.MutantResult? {
            report.mutants.first { $0.context == context && $0.original == code }
        }
        // The counter no rule reads: a survivor, and the rules that ran are named.
        let counter = try #require(
            mutant(in: "WorkerThreadScheduler.schedule(_:)", removing: "scheduled.add(1, ordering: .relaxed)"))
        #expect(counter.verdict == .survived)
        #expect(!counter.trials.isEmpty && counter.trials.allSatisfy { $0.kill == nil })
        // A worker never woken: the first rule waits for an action that never runs, past
        // four times its unmutated time plus a second.
        let wakeUp = try #require(mutant(in: "Worker.enqueue(_:)", removing: "wakeUp.signal()"))
        #expect(wakeUp.verdict == .killed && wakeUp.kill == .timeout, "\(wakeUp.trials)")
        // With every mutant off the schemata build judges as the package's own build does.
        let (_, plain) = try ToolTests.conformance(categories)
        let plainFailures = plain.subjects[0].results.filter { $0.status.isFailure }.map(\.rule.rawValue)
        let plainSkips = plain.subjects[0].results.filter { $0.status == .skipped }.map(\.rule.rawValue)
        #expect(report.baseline.filter { $0.status.isFailure }.map(\.rule).sorted() == plainFailures.sorted())
        #expect(report.baseline.filter { $0.status == .skipped }.map(\.rule).sorted() == plainSkips.sorted())
        #expect(report.baseline.count == plain.subjects[0].results.count)
    }
}
