import SchedulerConformance
import Schedulers
import Testing

/// A run of many subjects judges a rule that checks only this package once, and gives every
/// later subject that verdict, saying where it came from; an inconclusive one is judged again.
@Suite struct PackageVerdictsTests {
    static let lin5 = RuleCatalogue.rule(.lin5)
    static let can1 = RuleCatalogue.rule(.can1)
    static func subject(_ name: String) -> ConformanceSubject {
        ConformanceSubject(name: name) { QueueScheduler(name: name) }
    }

    /// Judges `rules` as a worker would: `status` for LIN-5, passed for the rest, recording
    /// which rules it was asked to judge.
    static func judge(_ rules: [Rule], status: RuleResult.Status, asked: inout [[String]]) -> [RuleResult] {
        asked.append(rules.map(\.id.rawValue))
        return rules.map { rule in
            RuleResult(
                rule: rule.id, level: rule.level, status: rule.id == .lin5 ? status : .passed,
                durationSeconds: 2, message: rule.id == .lin5 ? "the package's disposables" : nil)
        }
    }

    @Test func theSecondSubjectGetsTheFirstsVerdictWithoutJudgingIt() {
        var verdicts = PackageVerdicts()
        var asked: [[String]] = []
        let first = verdicts.results(of: [Self.can1, Self.lin5], on: Self.subject("a")) {
            Self.judge($0, status: .guaranteed, asked: &asked)
        }
        let second = verdicts.results(of: [Self.can1, Self.lin5], on: Self.subject("b")) {
            Self.judge($0, status: .guaranteed, asked: &asked)
        }
        #expect(asked == [["CAN-1", "LIN-5"], ["CAN-1"]])
        #expect(first.map(\.rule) == [.can1, .lin5] && second.map(\.rule) == [.can1, .lin5])
        #expect(second[1].status == .guaranteed && second[1].durationSeconds == 0)
        #expect(second[1].message == "judged once in this run, on `a`: the package's disposables")
        #expect(first[1].message == "the package's disposables")
    }

    @Test func anInconclusiveVerdictIsJudgedAgainByTheNextSubject() {
        var verdicts = PackageVerdicts()
        var asked: [[String]] = []
        _ = verdicts.results(of: [Self.lin5], on: Self.subject("a")) {
            Self.judge($0, status: .inconclusive, asked: &asked)
        }
        let second = verdicts.results(of: [Self.lin5], on: Self.subject("b")) {
            Self.judge($0, status: .guaranteed, asked: &asked)
        }
        #expect(asked == [["LIN-5"], ["LIN-5"]])
        #expect(second[0].status == .guaranteed && second[0].message == "the package's disposables")
    }

    @Test func theLightestSubjectAPackageRuleAppliesToIsJudgedFirst() {
        let subjects = ReferenceSubjects.all
        let plan = subjects.map { (subject: $0, rules: RuleCatalogue.all) }
        let order = PackageVerdicts.order(of: plan)
        #expect(order.sorted() == Array(subjects.indices))
        let applying = subjects.indices.filter { Self.lin5.skipReason(for: subjects[$0]) == nil }
        let applicable = { (index: Int) in RuleCatalogue.all.filter { $0.skipReason(for: subjects[index]) == nil }.count
        }
        let virtual = { (index: Int) in subjects[index].capabilities.contains(.virtualTime) ? 0 : 1 }
        let lightest = applying.min { (virtual($0), applicable($0), $0) < (virtual($1), applicable($1), $1) }
        #expect(order.first == lightest && subjects[order[0]].name == "test")
        // The rest keep the order asked for.
        #expect(Array(order.dropFirst()) == subjects.indices.filter { $0 != lightest })
    }

    @Test func aPlanWithNoPackageRuleKeepsItsOrder() {
        let plan = ReferenceSubjects.all.map { (subject: $0, rules: [Self.can1]) }
        #expect(PackageVerdicts.order(of: plan) == Array(plan.indices))
    }

    @Test func onlyLIN5JudgesOnlyThePackage() {
        #expect(RuleCatalogue.all.filter(\.judgesOnlyThePackage).map(\.id) == [.lin5])
    }
}
