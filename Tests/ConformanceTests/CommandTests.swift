import Foundation
import SchedulerConformance
import SchedulerProbes
import Subprocess
import TestSupport
import Testing

/// The `conformance` command as users and CI call it.
@Suite(.serialized) struct CommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("conformance").path

    struct Outcome {
        let status: TerminationStatus
        let output: String
        let error: String
    }

    static func conformance(_ arguments: [String], environment: Environment = .inherit) async throws -> Outcome {
        let result = try await Subprocess.run(
            .path(.init(executable)), arguments: .init(arguments), environment: environment,
            output: .string(limit: 1 << 22), error: .string(limit: 1 << 22)
        )
        return Outcome(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
    }

    static func temporaryFolder() -> URL {
        ScratchFolder.reserve("conformance")
    }

    @Test(arguments: [
        ["--subject", "no-such-scheduler"], ["--rule", "XYZ-9"], ["--category", "nonsense"],
        // An option given with nothing in it (a variable that expanded to nothing).
        ["--subject", ""], ["--rule", " , "], ["--category", ""],
        ["--no-such-flag"], ["--timing-scale", "0"], ["--report-dir", "/proc/not-writable"], ["--budget", "0"],
        ["--budget", "soon"], ["--seed", "-1"], ["mutants", "--mutant", "no-such-mutant"], ["mutate"],
        ["mutate", "--target", "Schedulers", "--package", "/no/such/package"],
        ["mutate", "--target", "Schedulers", "--operator", "flip-everything"],
        ["mutate", "--target", "Schedulers", "--configuration", "fast"],
        ["mutate", "--target", "Schedulers", "--minimum-score", "101"],
        ["mutate", "--target", "Schedulers", "--mutant-timeout", "-1"],
        ["mutate", "--target", "NoSuchTarget", "--package", packageRoot.path],
    ])
    func badInputGetsOneClearLineAndTheUsageExitCode(_ arguments: [String]) async throws {
        let outcome = try await Self.conformance(arguments)
        #expect(outcome.status == .exited(64))
        let errorLines = outcome.error.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errorLines.count == 1, "stderr was: \(outcome.error)")
    }

    /// A tool built on the harness is called by its own name in its usage and help, and in
    /// the usage that follows an error.
    @Test func usageNamesTheExecutableThatRuns() async throws {
        let folder = Self.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tool = folder.appendingPathComponent("my-scheduler-conformance")
        try FileManager.default.copyItem(atPath: Self.executable, toPath: tool.path)
        let help = try await Subprocess.run(
            .path(.init(tool.path)), arguments: ["--help"], output: .string(limit: 1 << 20), error: .discarded)
        #expect(help.standardOutput.contains("USAGE: my-scheduler-conformance <subcommand>"), "\(help.standardOutput)")
        let wrong = try await Subprocess.run(
            .path(.init(tool.path)), arguments: ["run", "--subject", ""], output: .discarded,
            error: .string(limit: 1 << 20))
        #expect(wrong.terminationStatus == .exited(64))
        #expect(wrong.standardError.contains("Usage: my-scheduler-conformance run"), "\(wrong.standardError)")
    }

    /// `--budget` reaches the model-checked rules in their worker processes: a rule explores
    /// at least its budget, so six times the standard 0.5 s shows in its duration.
    @Test func aBudgetReachesTheModelCheckedRules() async throws {
        let folder = Self.temporaryFolder()
        let outcome = try await Self.conformance([
            "--subject", "queue-executor", "--rule", "LIN-4", "--budget", "3", "--seed", "26", "--report-dir",
            folder.path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        let report = try JSONDecoder().decode(
            ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        let result = try #require(report.subjects.first?.results.first)
        // A busy machine may leave the rule short of meetings: inconclusive, never failed.
        #expect(result.status == .passed || result.status == .inconclusive, "\(result.message ?? "")")
        #expect(result.durationSeconds >= 3)
    }

    @Test func writesReportsThatValidateAgainstTheSchema() async throws {
        let folder = Self.temporaryFolder()
        let outcome = try await Self.conformance([
            "--subject", "test,trampoline", "--category", "VT,TRM,REC", "--report-dir", folder.path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        let json = folder.appendingPathComponent("conformance.json")
        let report = try JSONDecoder().decode(ConformanceReport.self, from: Data(contentsOf: json))
        #expect(report.subjects.map(\.name) == ["test", "trampoline"])
        #expect(report.summary.gatingFailures == 0)
        let junit = try String(contentsOf: folder.appendingPathComponent("conformance.junit.xml"), encoding: .utf8)
        #expect(junit.contains(#"<testcase classname="test" name="VT-1"#))
        let validation = try await Subprocess.run(
            .name("python3"),
            arguments: [
                Self.packageRoot.appendingPathComponent("Reports/schema/validate.py").path,
                Self.packageRoot.appendingPathComponent("Reports/schema/conformance.schema.json").path, json.path,
            ],
            output: .string(limit: 1 << 16), error: .string(limit: 1 << 16)
        )
        #expect(validation.terminationStatus == .exited(0), "\(validation.standardError)")
    }

    @Test func twoShardsMergedEqualTheUnshardedRun() async throws {
        // Rules whose verdict cannot turn inconclusive under load, so two runs agree: no rule
        // that races threads (REC-4 found the sanitizer's machine too busy in one run of two).
        let rules = RuleCatalogue.all.filter {
            [.current, .recursion, .virtualTime].contains($0.category) && !$0.needsIdleCores
        }
        let selection = [
            "--subject", "queue,test,trampoline", "--rule", rules.map(\.id.rawValue).joined(separator: ","), "--quiet",
        ]
        let whole = Self.temporaryFolder()
        let first = Self.temporaryFolder()
        let second = Self.temporaryFolder()
        let merged = Self.temporaryFolder()
        let unsharded = try await Self.conformance(["run"] + selection + ["--report-dir", whole.path])
        #expect(unsharded.status == .exited(0), "\(unsharded.output)\n\(unsharded.error)")
        let status = Self.temporaryFolder().appendingPathComponent("shard-status")
        try FileManager.default.createDirectory(
            at: status.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bazel: Environment = .inherit.updating([
            "TEST_TOTAL_SHARDS": "2", "TEST_SHARD_INDEX": "1", "TEST_SHARD_STATUS_FILE": status.path,
        ])
        let bazelShard = try await Self.conformance(
            ["run"] + selection + ["--report-dir", second.path], environment: bazel)
        #expect(bazelShard.status == .exited(0), "\(bazelShard.output)\n\(bazelShard.error)")
        #expect(FileManager.default.fileExists(atPath: status.path), "TEST_SHARD_STATUS_FILE was not touched")
        let flagShard = try await Self.conformance(
            ["run"] + selection + ["--total-shards", "2", "--shard-index", "0", "--report-dir", first.path])
        #expect(flagShard.status == .exited(0), "\(flagShard.output)\n\(flagShard.error)")
        let parts = [second, first].map { $0.appendingPathComponent("conformance.json").path }
        let merge = try await Self.conformance(["merge"] + parts + ["--report-dir", merged.path])
        #expect(merge.status == .exited(0), "\(merge.error)")

        func report(_ folder: URL) throws -> ConformanceReport {
            try JSONDecoder().decode(
                ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        }
        func identity(_ report: ConformanceReport) -> [String] {
            report.subjects.flatMap { subject in
                subject.results.map { "\(subject.name) \($0.rule) \($0.status.rawValue)" }
            }
        }
        let shards = try [first, second].map(report)
        #expect(shards.map(\.shard) == [try Shard(index: 0, total: 2), try Shard(index: 1, total: 2)])
        #expect(Set(identity(shards[0])).isDisjoint(with: identity(shards[1])))
        let expected = try report(whole)
        let result = try report(merged)
        #expect(identity(result) == identity(expected))
        #expect(result.summary == expected.summary && result.shard == nil)
        #expect(result.rules.map(\.id) == expected.rules.map(\.id))
        #expect(result.subjects.map(\.name) == expected.subjects.map(\.name))
        #expect(
            expected.environment.commit != nil && expected.timingScale == 1,
            "the report does not say what it was made from")
        let validation = try await Subprocess.run(
            .name("python3"),
            arguments: [
                Self.packageRoot.appendingPathComponent("Reports/schema/validate.py").path,
                Self.packageRoot.appendingPathComponent("Reports/schema/conformance.schema.json").path,
                merged.appendingPathComponent("conformance.json").path,
                first.appendingPathComponent("conformance.json").path,
            ],
            output: .string(limit: 1 << 16), error: .string(limit: 1 << 16)
        )
        #expect(validation.terminationStatus == .exited(0), "\(validation.standardError)")

        // A shard of another subject selection is not part of this run either.
        let narrower = Self.temporaryFolder()
        _ = try await Self.conformance([
            "run", "--subject", "queue", "--category", "ORD,CAN,VT", "--quiet", "--total-shards", "2", "--shard-index",
            "0", "--report-dir", narrower.path,
        ])
        let otherSubjects = [parts[0], narrower.appendingPathComponent("conformance.json").path]
        for bad in [
            [parts[0]], [parts[0], parts[0]], [parts[0], whole.appendingPathComponent("conformance.json").path],
            otherSubjects,
        ] {
            let outcome = try await Self.conformance(["merge"] + bad + ["--report-dir", Self.temporaryFolder().path])
            #expect(outcome.status == .exited(64), "\(bad)")
            #expect(
                outcome.error.split(separator: "\n").filter { $0.hasPrefix("Error: cannot merge") }.count == 1,
                "\(outcome.error)")
        }
    }

    @Test func aHungRuleBecomesATimeoutWithStacksAndTheRunGoesOn() async throws {
        let folder = Self.temporaryFolder()
        let outcome = try await Self.conformance([
            "--subject", "mutant-hanging", "--rule", "ORD-1,CAN-6,TIM-3", "--rule-timeout", "2", "--report-dir",
            folder.path,
        ])
        #expect(outcome.status == .exited(0), "a mutant does not gate the run")
        let report = try JSONDecoder().decode(
            ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        let results = Dictionary(uniqueKeysWithValues: report.subjects[0].results.map { ($0.rule, $0) })
        #expect(results[.ord1]?.status == .passed)
        #expect(results[.can6]?.status == .timeout)
        #expect(results[.tim3]?.status == .passed, "the run went on after the hang")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
            #expect(
                results[.can6]?.threadDump?.contains("Thread") == true,
                "no stacks in the timeout: \(outcome.error.split(separator: "\n").filter { $0.hasPrefix("gdb") })")
            // The call that never returned, named as in the source, and its thread's stack first.
            let message = results[.can6]?.message ?? ""
            #expect(
                message.contains(
                    "stuck in `HangingMutant.schedule(at:repeatingEvery:leeway:_:) at HarnessMutants.swift:"),
                "\(message)")
            #expect(
                results[.can6]?.threadDump?.prefix(2000).contains(
                    "HangingMutant.schedule(at:repeatingEvery:leeway:_:)")
                    == true)
        }
    }

    /// The main-thread scheduler, driven by the worker's `MainThreadScheduler.drain`, keeps
    /// nothing per thread (THR-6 weighs the worker's whole heap). The drain's run loop once
    /// kept about 100 bytes per action (Foundation's timeout timer, one per
    /// `RunLoop.run(mode:before:)` with a finite date), and THR-6 failed it 9 runs of 10; three
    /// runs let such a regression through once in a thousand.
    @Test func theMainThreadSchedulerLeavesNothingPerThreadInAWorker() async throws {
        for run in 1...3 {
            let folder = Self.temporaryFolder()
            let outcome = try await Self.conformance([
                "--subject", "main", "--rule", "THR-6", "--report-dir", folder.path,
            ])
            let report = try JSONDecoder().decode(
                ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
            let result = try #require(report.subjects.first?.results.first)
            // Under ThreadSanitizer the allocator does not tell its bytes in use.
            let expected: RuleResult.Status = HeapMeter.bytesInUse() == nil ? .inconclusive : .passed
            #expect(result.status == expected, "run \(run): \(result.message ?? "")\n\(outcome.error)")
        }
    }

    /// A runaway left by one rule is stopped at the worker's memory cap, with the same
    /// verdict in every run, and the rules after it run in a fresh worker.
    @Test func aRunawayIsStoppedAtTheMemoryCapWithTheSameVerdictEveryTime() async throws {
        for _ in 0..<Tier.runs(nightly: 5) {
            let folder = Self.temporaryFolder()
            let outcome = try await Self.conformance([
                "--subject", "mutant-growing", "--rule", "ORD-1,CAN-6,TIM-3", "--worker-memory", "0.25",
                "--report-dir", folder.path,
            ])
            #expect(outcome.status == .exited(0), "a mutant does not gate the run")
            let report = try JSONDecoder().decode(
                ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
            let results = Dictionary(uniqueKeysWithValues: report.subjects[0].results.map { ($0.rule, $0) })
            #expect(results[.ord1]?.status == .passed)
            #expect(results[.can6]?.status == .error)
            #expect(
                results[.can6]?.message?.contains("past the worker's cap of 0.25 GiB") == true,
                "\(results[.can6]?.message ?? "")")
            // The runaway's thread is the subject's own, with no call of the suite's under it.
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
                #expect(
                    results[.can6]?.message?.contains(
                        "; in `closure #1 in GrowingMutant.schedule(at:repeatingEvery:leeway:_:)") == true,
                    "\(results[.can6]?.message ?? "")")
            }
            #expect(results[.tim3]?.status == .passed, "the run went on in a fresh worker")
        }
        let refused = try await Self.conformance(["--subject", "queue", "--worker-memory", "0"])
        #expect(refused.status == .exited(64))
    }

    /// A rule that leaves the subject spinning says so, and the rules after it run in a fresh
    /// worker (in the old one they would find the spinning thread too), in every run.
    @Test func workLeftRunningIsReportedAndTheNextRulesGetAFreshWorker() async throws {
        for _ in 0..<Tier.runs(nightly: 3) {
            let folder = Self.temporaryFolder()
            let outcome = try await Self.conformance([
                "--subject", "mutant-spinning", "--rule", "ORD-1,CAN-6,TIM-3", "--report-dir", folder.path,
            ])
            #expect(outcome.status == .exited(0), "a mutant does not gate the run")
            let report = try JSONDecoder().decode(
                ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
            let results = Dictionary(uniqueKeysWithValues: report.subjects[0].results.map { ($0.rule, $0) })
            #expect(results[.ord1]?.status == .passed)
            #expect(results[.ord1]?.message?.contains("still running work") != true)
            let left = results[.can6]?.message ?? ""
            #expect(results[.can6]?.status == .passed, "\(left)")
            // Named as the thread names itself, or (when the worker looked before it did, as
            // under the sanitizer) after the process.
            #expect(left.contains("still running work (1 thread(s) busy: "), "\(left)")
            #expect(results[.tim3]?.status == .passed)
            #expect(
                results[.tim3]?.message?.contains("still running work") != true,
                "TIM-3 ran in the worker the runaway was left in")
        }
    }

    @Test func aCrashBecomesAnErrorAndTheRunGoesOn() async throws {
        let folder = Self.temporaryFolder()
        _ = try await Self.conformance([
            "--subject", "mutant-crashing", "--rule", "TIM-1,ORD-1", "--report-dir", folder.path,
        ])
        let report = try JSONDecoder().decode(
            ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        let statuses = report.subjects[0].results.map(\.status)
        #expect(statuses == [.passed, .error], "ORD-1 comes first in the catalogue, then the crashing TIM-1")
        #expect(report.subjects[0].results[1].message?.contains("traps on purpose") == true)
    }

    @Test func theCommittedRuleDocumentIsUpToDate() async throws {
        let outcome = try await Self.conformance(["list-rules", "--markdown"])
        let committed = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Conformance/RULES.md"), encoding: .utf8)
        #expect(committed == outcome.output, "Conformance/RULES.md is stale: run `make rules`")
        let article = try String(
            contentsOf: Self.packageRoot.appendingPathComponent(
                "Conformance/SchedulerConformance/SchedulerConformance.docc/RuleReference.md"),
            encoding: .utf8)
        #expect(article == outcome.output, "the documentation's rule reference is stale: run `make rules`")
    }

    @Test func listsTheCatalogue() async throws {
        let outcome = try await Self.conformance(["list-rules"])
        #expect(outcome.status == .exited(0))
        #expect(outcome.output.split(separator: "\n").count == RuleCatalogue.all.count)
    }
}
