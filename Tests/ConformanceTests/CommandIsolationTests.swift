import Foundation
import SchedulerConformance
import SchedulerProbes
import Schedulers
import Subprocess
import TestSupport
import Testing

/// The worker processes: hangs, runaways, leftovers and crashes each cost one rule, not the run.
extension CommandTests {
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
    /// `RunLoop.run(mode:before:)` with a finite date), which THR-6 fails in most runs; three
    /// runs let such a regression through seldom.
    @Test func theMainThreadSchedulerLeavesNothingPerThreadInAWorker() async throws {
        for run in 1...3 {
            let folder = Self.temporaryFolder()
            let outcome = try await Self.conformance([
                "--subject", "main", "--rule", "THR-6", "--report-dir", folder.path,
            ])
            let report = try JSONDecoder().decode(
                ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
            let result = try #require(report.subjects.first?.results.first)
            // Under ThreadSanitizer the allocator does not tell its bytes in use. (Not read from
            // this process's meter: its probe allocates beside parallel tests that free.)
            let expected: RuleResult.Status = ThreadSanitizerBuild.isEnabled ? .inconclusive : .passed
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
