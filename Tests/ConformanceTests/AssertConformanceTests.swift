import SchedulerConformance
import SchedulerConformanceTesting
import SchedulerMutants
import Schedulers
import Testing

@Suite struct AssertConformanceTests {
    @Test func aConformingSubjectRecordsNoIssue() {
        let subject = ConformanceSubject(name: "test scheduler", origin: .thirdParty) { TestScheduler() }
        let results = assertConformance(subject, rules: RuleCatalogue.all.filter { $0.category == .virtualTime })
        #expect(results.allSatisfy { $0.status == .passed || $0.status == .skipped })
        #expect(results.contains { $0.status == .passed })
    }

    @Test func fromAnAsyncTestTheRulesRunOffThePool() async {
        let inTask = Box<[Bool]>([])
        // Capabilities are given, so every scheduler made is one a rule asked for.
        let subject = ConformanceSubject(name: "test scheduler", origin: .thirdParty, capabilities: TestScheduler().capabilities) {
            inTask.update { $0.append(withUnsafeCurrentTask { $0 != nil }) }
            return TestScheduler()
        }
        let results = await assertConformance(subject, rules: RuleCatalogue.all.filter { $0.category == .virtualTime })
        #expect(results.count == RuleCatalogue.all.filter { $0.category == .virtualTime }.count)
        #expect(results.allSatisfy { $0.status == .passed || $0.status == .skipped })
        #expect(!inTask.value.isEmpty && !inTask.value.contains(true), "schedulers were made inside a task: \(inTask.value)")
    }

    @Test func aBrokenSubjectRecordsOneIssuePerFailedRule() {
        let mutant = Mutants.all.first { $0.subject.name == "mutant-virtual-unstable-ties" }!
        withKnownIssue("the mutant breaks FIFO ties") {
            _ = assertConformance(mutant.subject, rules: [RuleCatalogue.rule("VT-4")!])
        }
    }

    @Test func expectedDeviationsDoNotFail() {
        let mutant = Mutants.all.first { $0.subject.name == "mutant-virtual-unstable-ties" }!
        let results = assertConformance(mutant.subject, rules: [RuleCatalogue.rule("VT-4")!], expectedDeviations: ["VT-4"])
        #expect(results.map(\.status) == [.failed])
    }
}
