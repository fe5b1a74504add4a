import Foundation
import SchedulerConformance
import SchedulerStress
import Schedulers
import Subprocess
import TestSupport
import Testing

/// The `stress` command as a nightly job calls it.
@Suite(.serialized) struct StressCommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("stress").path
    /// Whether the stress tool will count allocations with jemalloc: it is installed, and this
    /// is not the ThreadSanitizer build (whose own allocator leaves jemalloc nothing to count).
    static let jemallocInstalled =
        !ThreadSanitizerBuild.isEnabled
        && ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .contains { FileManager.default.fileExists(atPath: $0 + "/libjemalloc.so.2") }

    struct Outcome {
        let status: TerminationStatus
        let output: String
        let error: String
    }

    static func stress(_ arguments: [String], environment: Environment = .inherit) async throws -> Outcome {
        let result = try await Subprocess.run(
            .path(.init(executable)), arguments: .init(arguments), environment: environment,
            output: .string(limit: 1 << 22), error: .string(limit: 1 << 22)
        )
        return Outcome(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
    }

    static func folder() -> URL {
        ScratchFolder.reserve("stress")
    }

    static func report(in folder: URL) throws -> StressReport {
        try JSONDecoder().decode(
            StressReport.self, from: Data(contentsOf: folder.appendingPathComponent("latest.json")))
    }

    static func validate(_ report: URL) async throws -> TerminationStatus {
        try await Subprocess.run(
            .name("python3"),
            arguments: [
                packageRoot.appendingPathComponent("Reports/schema/validate.py").path,
                packageRoot.appendingPathComponent("Reports/schema/stress.schema.json").path, report.path,
            ],
            output: .discarded, error: .discarded
        ).terminationStatus
    }

    @Test func twoShardsMergedEqualTheUnshardedRun() async throws {
        let selection = [
            "--scenario", "fan-in,dispose-race,current-churn", "--subject", "queue,immediate,test", "--duration", "0.2",
            "--seed", "7", "--allocator", "system",
        ]
        let whole = Self.folder()
        let first = Self.folder()
        let second = Self.folder()
        let merged = Self.folder()
        #expect(try await Self.stress(["run"] + selection + ["--report-dir", whole.path]).status == .exited(0))
        // One shard as Bazel asks for it, the other with flags.
        let status = Self.folder().appendingPathComponent("shard-status")
        try FileManager.default.createDirectory(
            at: status.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bazel: Environment = .inherit.updating([
            "TEST_TOTAL_SHARDS": "2", "TEST_SHARD_INDEX": "0", "TEST_SHARD_STATUS_FILE": status.path,
        ])
        #expect(
            try await Self.stress(["run"] + selection + ["--report-dir", first.path], environment: bazel).status
                == .exited(0))
        #expect(FileManager.default.fileExists(atPath: status.path), "TEST_SHARD_STATUS_FILE was not touched")
        #expect(
            try await Self.stress(
                ["run"] + selection + ["--total-shards", "2", "--shard-index", "1", "--report-dir", second.path]
            ).status == .exited(0))
        let parts = [first, second].map { $0.appendingPathComponent("latest.json").path }
        let merge = try await Self.stress(["merge"] + parts + ["--report-dir", merged.path])
        #expect(merge.status == .exited(0), "\(merge.error)")

        let shards = try [first, second].map { try Self.report(in: $0) }
        #expect(shards.map(\.shard) == [try Shard(index: 0, total: 2), try Shard(index: 1, total: 2)])
        #expect(shards.allSatisfy { !$0.runs.isEmpty }, "a shard ran nothing: the partition is lopsided")
        let expected = try Self.report(in: whole)
        let result = try Self.report(in: merged)
        func identity(_ report: StressReport) -> [String] {
            report.runs.map { "\($0.scenario) \($0.subject) \($0.status.rawValue) \($0.seed) \($0.threads)" }
        }
        #expect(identity(result) == identity(expected))
        #expect(result.summary == expected.summary)
        #expect(
            result.shard == nil && result.seed == expected.seed && result.scenarios == expected.scenarios
                && result.subjects == expected.subjects)
        #expect(abs(result.budgetSeconds - expected.budgetSeconds) < 1e-9)
        #expect(try await Self.validate(merged.appendingPathComponent("latest.json")) == .exited(0))
        #expect(try await Self.validate(first.appendingPathComponent("latest.json")) == .exited(0))

        // Not every shard, one twice, a whole run, or a shard with another seed: one clear line
        // and the usage exit code.
        let reseeded = Self.folder()
        let otherSeed = selection.map { $0 == "7" ? "8" : $0 }
        #expect(
            try await Self.stress(
                ["run"] + otherSeed + ["--total-shards", "2", "--shard-index", "1", "--report-dir", reseeded.path]
            ).status == .exited(0))
        let differentSeed = [parts[0], reseeded.appendingPathComponent("latest.json").path]
        for bad in [
            [parts[0]], [parts[0], parts[0]], [parts[0], whole.appendingPathComponent("latest.json").path],
            differentSeed,
        ] {
            let outcome = try await Self.stress(["merge"] + bad + ["--report-dir", Self.folder().path])
            #expect(outcome.status == .exited(64), "\(bad)")
            #expect(
                outcome.error.split(separator: "\n").filter { $0.hasPrefix("Error: cannot merge") }.count == 1,
                "\(outcome.error)")
        }
    }

    @Test(arguments: [
        ["--scenario", "no-such"], ["--subject", "no-such"], ["--budget", "10x"], ["--budget", "-5m"],
        ["--threads", "0"], ["--report-dir", "/proc/not-writable"], ["--allocator", "tcmalloc"], ["--bogus"],
        ["--scenario", ""], ["--subject", " "], ["--minimum-operations", "0"],
    ])
    func badInputGetsOneClearLineAndTheUsageExitCode(_ arguments: [String]) async throws {
        let outcome = try await Self.stress(arguments)
        #expect(outcome.status == .exited(64))
        #expect(
            outcome.error.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1,
            "stderr: \(outcome.error)")
    }

    @Test func clocksAndExecutorsAreStressedAndTheBrokenOnesCaught() async throws {
        let folder = Self.folder()
        let subjects = [
            "queue-executor", "test-executor", "virtual-clock", "control-real-clock", "control-manual-clock",
            "mutant-executor-drops-jobs", "mutant-clock-rounds-to-milliseconds", "mutant-manual-clock-early-by-one",
        ]
        let outcome = try await Self.stress([
            "--scenario", "executor-throughput,sleep-storm,sleep-throughput", "--subject",
            subjects.joined(separator: ","),
            "--duration",
            "0.3", "--report-dir", folder.path,
        ])
        // Mutants and controls never gate the exit status.
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        let report = try Self.report(in: folder)
        func run(_ scenario: ScenarioID, _ subject: String) -> StressRun? {
            report.runs.first { $0.scenario == scenario && $0.subject == subject }
        }
        for subject in ["queue-executor", "test-executor"] {
            let benchmark = try #require(run(.executorThroughput, subject))
            #expect(benchmark.status == .passed, "\(subject): \(benchmark.message ?? "")")
            #expect((benchmark.ratioToBaseline ?? 0) > 0)
            #expect((benchmark.metrics[BenchmarkUnit.job.baselineNanoseconds] ?? 0) > 0)
        }
        for subject in ["virtual-clock", "control-real-clock", "control-manual-clock"] {
            let storm = try #require(run(.sleepStorm, subject))
            #expect(storm.status == .passed, "\(subject): \(storm.message ?? "")")
            #expect(
                (storm[SleepStormOutcome.woke]?.count ?? 0) > 0 && (storm[SleepStormOutcome.cancelled]?.count ?? 0) > 0)
        }
        for subject in ["virtual-clock", "control-manual-clock"] {
            let benchmark = try #require(run(.sleepThroughput, subject))
            #expect(benchmark.status == .passed, "\(subject): \(benchmark.message ?? "")")
            #expect((benchmark.ratioToBaseline ?? 0) > 0)
            #expect((benchmark.metrics[BenchmarkUnit.sleep.nanoseconds] ?? 0) > 0)
        }
        #expect(run(ScenarioID.sleepThroughput, "control-real-clock")?.status == .skipped, "a real clock is not driven")
        for (scenario, subject, forbidden) in [
            (ScenarioID.executorThroughput, "mutant-executor-drops-jobs", "lost"),
            (ScenarioID.sleepStorm, "mutant-clock-rounds-to-milliseconds", "early"),
            (ScenarioID.sleepStorm, "mutant-manual-clock-early-by-one", "early"),
        ] {
            let broken = try #require(run(scenario, subject))
            #expect(
                broken.status == .failed && (broken.outcomes[forbidden]?.count ?? 0) > 0,
                "\(scenario) × \(subject): \(broken.status) \(broken.outcomes)")
        }
        #expect(run(ScenarioID.fanIn, "queue-executor") == nil, "only the scenarios asked for run")
        #expect(try await Self.validate(folder.appendingPathComponent("latest.json")) == .exited(0))
    }

    /// The soak on the reference queue and on one that keeps a closure in ten thousand: only
    /// the second's heap grows with the work. Without jemalloc (a ThreadSanitizer build) the
    /// heap cannot be read, and the run says so.
    ///
    /// The heap is sampled only in quiet moments; a run in which either subject got too few
    /// to fit is inconclusive, which shows neither verdict, and runs again for twice as long
    /// (up to three times): beside other test processes a run of 4 s can sample the queue
    /// fewer times than the fit needs.
    @Test(.nightly("samples the heap until quiet moments came"))
    func theSoakFindsAClosureKeptInTenThousand() async throws {
        var folder = Self.folder()
        var seconds = 8
        var outcome = try await Self.soak(into: folder, seconds: seconds)
        for _ in 1..<3 {
            let runs = try Self.report(in: folder).runs
            guard runs.contains(where: { $0.status == .inconclusive }) else { break }
            folder = Self.folder()
            seconds *= 2
            outcome = try await Self.soak(into: folder, seconds: seconds)
        }
        let report = try Self.report(in: folder)
        let queue = try #require(report.runs.first { $0.subject == "queue" })
        let leaking = try #require(report.runs.first { $0.subject == "mutant-keeps-one-closure-in-10000" })
        guard report.environment.allocator == "jemalloc" else {
            #expect(
                queue.status == .error && queue.message?.contains("libjemalloc-dev") == true, "\(queue.message ?? "")")
            return
        }
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        #expect(queue.status == .passed, "\(queue.message ?? "") \(queue.memory?.liveGrowthPerMillion ?? -1)")
        // The work ran: a floor far under any machine's rate, loaded by the other tests
        // too, not a speed.
        #expect(
            queue[SoakOutcome.steady]?.count == 1 && (queue[SoakOutcome.ran]?.count ?? 0) > 50_000,
            "\(queue.outcomes)")
        let memory = try #require(queue.memory)
        #expect(memory.samples.count >= MemoryCurve.minimumRounds && memory.samples.allSatisfy { $0.liveBytes != nil })
        #expect(
            leaking.status == .failed && leaking[SoakOutcome.leak]?.count == 1,
            "\(leaking.status) \(leaking.memory?.liveGrowthPerMillion ?? -1) B per 10⁶ actions")
        #expect(try await Self.validate(folder.appendingPathComponent("latest.json")) == .exited(0))
    }

    /// A Dispatch scheduler whose pending actions are an array it takes the first of is called
    /// superlinear by its fan-in, timed in the worker's processor time, and the reference queue
    /// beside it is not. A worker, as nightly runs have: the fan-in's time is the process's.
    @Test(.nightly("fits an exponent to timed rounds"))
    func growthCallsAFanInIntoAnArrayFIFOSuperlinear() async throws {
        let folder = Self.folder()
        let outcome = try await Self.stress([
            "--scenario", "growth", "--subject", "queue,mutant-array-fifo", "--duration", "0.5",
            "--report-dir", folder.path,
        ])
        let report = try Self.report(in: folder)
        let queue = try #require(report.runs.first { $0.subject == "queue" })
        let fifo = try #require(report.runs.first { $0.subject == "mutant-array-fifo" })
        #expect(queue.growth?.workload == .fanIn)
        #expect(queue.status == .passed, "queue: exponent \(queue.growth?.exponent ?? -1)")
        // Under the sanitizer every action costs ten times more while the array's shifts do
        // not, which flattens the mutant's fit, and a loaded run may measure too few sizes to
        // fit: its verdict is `make test`'s; here the sanitizer watches the paths it took.
        guard !ThreadSanitizerBuild.isEnabled else { return }
        #expect(fifo.growth?.workload == .fanIn, "\(fifo.status): \(fifo.message ?? "")")
        // A mutant's failure is expected, so it does not fail the command.
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        #expect(
            fifo.status == .failed && fifo[GrowthOutcome.superlinear]?.count == 1,
            """
            array FIFO: \(fifo.status), exponent \(fifo.growth?.exponent ?? -1) over \(fifo.growth?.sizes ?? []), \
            \(fifo.message ?? "")
            """
        )
    }

    /// `seconds` of the soak on the reference queue and the one-in-ten-thousand leak.
    private static func soak(into folder: URL, seconds: Int) async throws -> Outcome {
        try await stress([
            "--scenario", "soak", "--subject", "queue,mutant-keeps-one-closure-in-10000", "--duration", "\(seconds)",
            "--report-dir", folder.path,
        ])
    }
}
