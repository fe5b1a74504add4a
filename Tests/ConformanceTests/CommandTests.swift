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
        ["mutate", "--target", "Schedulers", "--jobs", "0"],
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
}
