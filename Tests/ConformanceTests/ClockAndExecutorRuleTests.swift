import SchedulerConformance
import SchedulerMutants
import Schedulers
import TestSupport
import Testing

/// The CLK and EXE profiles judge what they claim to: correct clocks and executors pass
/// every rule of their kind, and the profiles are what the issue promised.
@Suite struct ClockAndExecutorRuleTests {
    /// The "must happen" bounds grow under the sanitizer (``ThreadSanitizerBuild/slowdown``): only
    /// correct subjects run here, and they never wait for them.
    static let timing = Timing(
        mustHappen: .seconds(5) * ThreadSanitizerBuild.slowdown, quietWindow: .milliseconds(100),
        lateness: .milliseconds(200), ruleTimeout: .seconds(60) * ThreadSanitizerBuild.slowdown
    )

    /// Correct subjects: the mutants' fault-free controls, the reference bridges and the
    /// standard library's clocks.
    static let correct: [ConformanceSubject] =
        Mutants.controls + ReferenceSubjects.all.filter { $0.kind != .scheduler } + [
            ConformanceSubject(name: "continuous-clock", clock: { ClockUnderTest(ContinuousClock()) }),
            ConformanceSubject(name: "suspending-clock", clock: { ClockUnderTest(SuspendingClock()) }),
        ]

    @Test(.nightly("every clock and executor rule in this process: 150 s"), arguments: correct.map(\.name))
    func correctSubjectPassesEveryRuleOfItsKind(_ name: String) async throws {
        let subject = try #require(Self.correct.first { $0.name == name })
        let rules = RuleCatalogue.all.filter { $0.kind == subject.kind }
        let results = await OwnThread.run(.rules) {
            ConformanceRunner.run(subject, rules: rules, timing: Self.timing)
        }
        // Inconclusive is not a failure: in a test process full of parallel tests a rule that
        // races threads (CAN-3 on the drain-loop control) may not get its race; the command
        // runs it alone. Nor is a stochastic rule's (CLK-11's absolute lateness bound), as in
        // ReferenceConformanceTests: parallel tests that start thousands of threads stretch a
        // real clock's wake-up far past it.
        let bad = results.filter {
            ![.passed, .skipped, .inconclusive, .guaranteed].contains($0.status)
                && RuleCatalogue.rule($0.rule).level != .stochastic
        }
        #expect(bad.isEmpty, "\(name): \(bad.map { "\($0.rule) \($0.status.rawValue): \($0.message ?? "")" })")
        #expect(results.contains { $0.status == .passed })
    }

    @Test func profilesHaveAtLeastEightRulesEach() {
        #expect(RuleCatalogue.all.filter { $0.category == .clock }.count >= 8)
        #expect(RuleCatalogue.all.filter { $0.category == .executor }.count >= 8)
    }

    @Test func rulesOfOneKindSkipSubjectsOfAnother() throws {
        let clockRule = RuleCatalogue.rule(.clk1)
        let queue = try #require(ReferenceSubjects.all.first { $0.name == "queue" })
        #expect(clockRule.skipReason(for: queue) == "is a scheduler, not a clock")
        let executor = try #require(ReferenceSubjects.all.first { $0.name == "queue-executor" })
        #expect(RuleCatalogue.rule(.ord1).skipReason(for: executor) == "is an executor, not a scheduler")
    }
}
