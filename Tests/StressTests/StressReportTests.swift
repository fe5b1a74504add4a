import Foundation
import SchedulerConformance
import SchedulerStress
import Schedulers
import Subprocess
import TestSupport
import Testing

/// What a short run writes, with and without jemalloc, and what a hang or a crash becomes.
extension StressCommandTests {
    @Test func aShortRunWritesAValidReportWithAllocatorAndSeed() async throws {
        let folder = Self.folder()
        let outcome = try await Self.stress([
            "--scenario", "fan-in,throughput", "--subject", "queue", "--duration", "0.3", "--seed", "7", "--report-dir",
            folder.path,
        ])
        #expect(outcome.status == .exited(0), "\(outcome.output)\n\(outcome.error)")
        let report = try Self.report(in: folder)
        #expect(report.seed == 7)
        #expect(report.runs.map(\.status) == [.passed, .passed])
        #expect(report.environment.allocator == (Self.jemallocInstalled ? "jemalloc" : "system"))
        if Self.jemallocInstalled {
            #expect(report.runs.allSatisfy { $0.allocations != nil })
        }
        // The latency histogram holds every sample, in buckets doubling in width, and its
        // median bucket is the one the p50 falls in.
        let latency = try #require(report.runs.first { $0.scenario == .fanIn }?.latencyNanoseconds)
        let buckets = try #require(latency.histogram)
        #expect(buckets.reduce(0) { $0 + $1.count } == latency.count)
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $1.upToNanoseconds > $0.upToNanoseconds })
        var seen: UInt64 = 0
        let median = try #require(
            buckets.first {
                seen += $0.count
                return seen * 2 >= latency.count
            })
        #expect(
            latency.p50 <= median.upToNanoseconds && latency.p50 * 2 >= median.upToNanoseconds / 2,
            "p50 \(latency.p50) outside its bucket ≤ \(median.upToNanoseconds)")
        #expect(try await Self.validate(folder.appendingPathComponent("latest.json")) == .exited(0))
        let stamped = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("Z.json") }
        #expect(stamped.count == 1)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("latest.junit.xml").path))
    }

    @Test func withoutJemallocTheReportSaysSystemAndNullStats() async throws {
        let folder = Self.folder()
        let outcome = try await Self.stress([
            "--scenario", "fan-in", "--subject", "queue", "--duration", "0.2", "--allocator", "system", "--report-dir",
            folder.path,
        ])
        #expect(outcome.status == .exited(0))
        let report = try Self.report(in: folder)
        #expect(report.environment.allocator == "system")
        #expect(report.runs[0].allocations == nil)
        let json = try String(contentsOf: folder.appendingPathComponent("latest.json"), encoding: .utf8)
        #expect(json.contains(#""allocations" : null"#))
        #expect(try await Self.validate(folder.appendingPathComponent("latest.json")) == .exited(0))
    }

    /// The soak's bar: a run that made fewer operations than asked fails, its report written.
    @Test func aRunShortOfItsMinimumOperationsFailsAndKeepsItsReport() async throws {
        let (short, enough) = (Self.folder(), Self.folder())
        let run = ["--scenario", "throughput", "--subject", "queue", "--duration", "0.2", "--report-dir"]
        let failed = try await Self.stress(run + [short.path, "--minimum-operations", String(Int.max)])
        #expect(failed.status == .exited(1))
        #expect(failed.error.contains("short of the \(Int.max) asked"), "\(failed.error)")
        #expect(try Self.report(in: short).runs.map(\.status) == [.passed])
        let passed = try await Self.stress(run + [enough.path, "--minimum-operations", "1"])
        #expect(passed.status == .exited(0), "\(passed.error)")
        #expect(passed.error.contains("of at least 1 asked"))
    }

    @Test func aHangBecomesATimeoutWithStacksAndACrashAnErrorAndTheRunGoesOn() async throws {
        let folder = Self.folder()
        let outcome = try await Self.stress([
            "--scenario", "repeating-cancel-race,timer-storm,fan-in", "--subject", "mutant-hanging,mutant-crashing",
            // The grace bounds the hang; it also has to cover a crash's backtrace, which the
            // Swift runtime takes seconds to print on a loaded machine.
            "--duration", "0.2", "--hang-grace", "10", "--report-dir", folder.path,
        ])
        #expect(outcome.status == .exited(0), "mutants do not gate the run")
        let runs = Dictionary(
            uniqueKeysWithValues: try Self.report(in: folder).runs.map { ("\($0.scenario) \($0.subject)", $0) })
        #expect(runs["repeating-cancel-race mutant-hanging"]?.status == .timeout)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
            #expect(runs["repeating-cancel-race mutant-hanging"]?.diagnostics?.contains("Thread") == true)
        }
        #expect(runs["timer-storm mutant-crashing"]?.status == .error)
        #expect(runs["timer-storm mutant-crashing"]?.message?.contains("traps on purpose") == true)
        #expect(runs["fan-in mutant-crashing"]?.status == .passed, "the run went on after the crash")
        #expect(runs["timer-storm mutant-crashing"]?.reproduce?.contains("--seed") == true)
    }

    @Test func allocationCountsAreRightAcrossThreads() async throws {
        let outcome = try await Self.stress(["calibrate-allocations", "--threads", "4", "--objects", "50000"])
        #expect(outcome.status == .exited(0), "\(outcome.output)\(outcome.error)")
        if Self.jemallocInstalled {
            #expect(outcome.output.contains("allocator jemalloc"), "\(outcome.output)")
            #expect(outcome.output.contains("within 1%"))
        }
        let fallback = try await Self.stress(["calibrate-allocations", "--allocator", "system"])
        #expect(fallback.status == .exited(0))
        #expect(fallback.output.contains("allocator system"))
    }
}
