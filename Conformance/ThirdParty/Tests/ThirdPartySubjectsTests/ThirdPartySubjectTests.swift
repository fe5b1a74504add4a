import Foundation
import SchedulerConformance
import SchedulerProbes
import SchedulerStress
import Schedulers
import Subprocess
import Testing

@testable import ThirdPartySubjects

/// The adapters run for real: the deterministic and quick ones pass every required rule
/// they claim except their explained deviations, which must still be observed (a library
/// that fixed one should have its explanation removed). They run through the
/// `conformance` command, a process per subject as users run them: in this process the
/// other tests hold the cooperative pool that Swift-concurrency subjects need.
@Suite struct ThirdPartySubjectTests {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("matrix-conformance").path

    @Test func meetTheRulesButTheirExplainedDeviations() async throws {
        let expected: [ThirdPartySubjectName: Set<RuleID>] = [
            .nioEmbedded: [.vt10, .lin7],  // LIN-7 sees VT-10 again, and a batch's cancelled task run
            .nioAsyncTesting: [.vt10, .can1, .lin2, .lin7],  // LIN-2 and LIN-7 see VT-10 and CAN-1 again
            .dispatchSerial: [.can9],
            .swiftSerialExecutor: [],
            .stdlibContinuousClock: [],
            // Declares its parked due sleeps: CLK-4 holds it to that, and passes.
            .swiftClocksTestClock: [],
            .swiftClocksImmediateClock: [.clk4],
            .dispatchQueueExecutor: [],
            .nioEventLoopExecutor: [],
            .combineSchedulersImmediate: [],
        ]
        // Deviations that need a loaded machine to show: allowed, not required.
        // (LIN-3 finds a cancellation that lands after an advance took its sleeper when a
        // generated scenario makes the two meet, and two advances at once losing one when a
        // scenario drives from two threads; LibraryBehaviourTests shows the second on its own.)
        let intermittent: [ThirdPartySubjectName: Set<RuleID>] = [.swiftClocksTestClock: [.clk7, .clk10, .lin3]]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("third-party-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await Subprocess.run(
            .path(.init(Self.executable)),
            arguments: .init([
                "run", "--subject", expected.keys.map(\.rawValue).sorted().joined(separator: ","), "--quiet",
                "--report-dir",
                folder.path,
            ]),
            output: .discarded, error: .string(limit: 1 << 20)
        )
        // Third parties never decide the exit status: this only catches a crash of the command.
        #expect(run.terminationStatus == .exited(0), "\(run.standardError)")
        let report = try JSONDecoder().decode(
            ConformanceReport.self, from: Data(contentsOf: folder.appendingPathComponent("conformance.json")))
        for subject in report.subjects {
            let name = try #require(ThirdPartySubjectName(rawValue: subject.name))
            let deviations = try #require(expected[name])
            let maybe = intermittent[name] ?? []
            let failedRequired = subject.results.filter { result in
                result.status.isFailure && RuleCatalogue.rule(result.rule).level == .required
                    && !maybe.contains(result.rule)
            }
            #expect(
                Set(failedRequired.map(\.rule)) == deviations,
                "\(subject.name): \(failedRequired.map { "\($0.rule): \($0.message ?? "")" })")
            for id in deviations.union(maybe) {
                #expect(
                    Deviations.explanations.explanation(subject: subject.name, check: .rule(id)) != nil,
                    "\(subject.name) \(id) has no explanation")
            }
        }
        #expect(Set(report.subjects.map(\.name)) == Set(expected.keys.map(\.rawValue)))
        // The embedded loop is never called from another thread: every rule that would is skipped.
        let embedded = try #require(report.subjects.first { $0.name == ThirdPartySubjectName.nioEmbedded.rawValue })
        let threaded = Set(RuleCatalogue.all.filter { $0.excludes.contains(.threadConfined) }.map(\.id))
        #expect(!threaded.isEmpty)
        #expect(embedded.results.filter { threaded.contains($0.rule) }.allSatisfy { $0.status == .skipped })
    }

    @Test func everyExplanationNamesAKnownSubjectAndRuleOrScenario() {
        // The explanations name subjects by `ThirdPartySubjectName`: each name is a subject's.
        #expect(ThirdPartySubjects.all.map(\.name).sorted() == ThirdPartySubjectName.allCases.map(\.rawValue).sorted())
        let subjects = Set(ThirdPartySubjects.all.map(\.name))
        let checks = Set(
            RuleCatalogue.all.map { CheckID.rule($0.id) } + StressCatalogue.all.map { CheckID.scenario($0.id) })
        for key in Deviations.explanations.entries.keys {
            #expect(key.subject.map(subjects.contains) ?? true, "bad deviation key '\(key)': no such subject")
            #expect(key.check.map(checks.contains) ?? true, "bad deviation key '\(key)'")
            #expect(key.subject != nil || key.check != nil, "a deviation key for everything")
        }
    }
}

/// The ledger that lets NIO's test loops step: it must name the earliest live deadline.
@Suite struct DeadlineLedgerTests {
    private func time(_ seconds: Int64) -> SchedulerTime { try! SchedulerTime.zero.advanced(by: .seconds(seconds)) }

    @Test func theEarliestLiveDeadlineIsDue() {
        let ledger = DeadlineLedger()
        let late = ledger.add(at: time(3))
        let early = ledger.add(at: time(1))
        _ = ledger.add(at: time(2))
        #expect(ledger.earliest()?.time == time(1))
        #expect(ledger.remove(early) != nil)
        #expect(ledger.earliest()?.time == time(2))
        _ = ledger.remove(late)
        #expect(ledger.remove(late) == nil, "removing twice gave a cancel action twice")
    }

    @Test func repeatingWorkMovesItsDeadline() {
        let ledger = DeadlineLedger()
        let tick = ledger.add(at: time(1))
        ledger.ran(tick)
        #expect(ledger.earliest() == nil, "a running tick still looked due")
        ledger.due(tick, at: time(5))
        #expect(ledger.earliest()?.time == time(5))
        _ = ledger.remove(tick)
        ledger.due(tick, at: time(6))
        #expect(ledger.earliest() == nil, "disposed repeating work came back")
    }

    @Test func removeAllHandsBackEveryCancel() {
        let ledger = DeadlineLedger()
        let cancelled = Box(0)
        for second in 1...3 { ledger.attach(ledger.add(at: time(Int64(second)))) { cancelled.value += 1 } }
        for cancel in ledger.removeAll() { cancel() }
        #expect(cancelled.value == 3)
        #expect(ledger.earliest() == nil)
    }
}
