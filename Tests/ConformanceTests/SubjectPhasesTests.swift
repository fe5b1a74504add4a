import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@testable import ConformanceCommands
@testable import SchedulerConformance

/// `conformance run`'s plan: the rules that only wait run with other subjects' workers beside
/// them, the racing and package rules after, one subject at a time; every subject's results
/// come back in its rules' order, whichever phase judged them.
@Suite struct SubjectPhasesTests {
    private static let racing = RuleCatalogue.rule(.can3)
    private static let waiting = RuleCatalogue.rule(.can1)
    private static let package = RuleCatalogue.rule(.lin5)
    private static let subjects = ["a", "b", "c"].map { name in
        ConformanceSubject(name: name) { QueueScheduler(name: name) }
    }

    /// Each call of the judge, in the order they began, and how many ran at once at most.
    private final class Calls: Sendable {
        private let log = Mutex<[(subject: String, rules: [RuleID])]>([])
        private let running = Atomic<Int>(0)
        private let peak = Atomic<Int>(0)

        func judge(_ subject: ConformanceSubject, _ rules: [Rule], meeting: Countdown?) -> [RuleResult] {
            log.withLock { $0.append((subject.name, rules.map(\.id))) }
            let now = running.wrappingAdd(1, ordering: .relaxed).newValue
            peak.max(now, ordering: .relaxed)
            if let meeting {
                meeting.tick()
                _ = meeting.wait(.seconds(60))
            }
            running.wrappingSubtract(1, ordering: .relaxed)
            return rules.map { rule in
                RuleResult(
                    rule: rule.id, level: rule.level, status: .passed, durationSeconds: 0,
                    message: "\(subject.name)")
            }
        }

        var all: [(subject: String, rules: [RuleID])] { log.withLock { $0 } }
        var mostAtOnce: Int { peak.load(ordering: .relaxed) }
    }

    @Test func waitingRulesRunSideBySideAndTheRestAloneAfter() {
        let plan = Self.subjects.map { (subject: $0, rules: [Self.racing, Self.waiting, Self.package]) }
        let calls = Calls()
        // The sharing phase's judges wait for two of them to have begun: with a width of two
        // they meet at once; one after another, the first would wait out the minute, and the
        // most at once would be one.
        let meeting = Countdown(2)
        var done: [String] = []
        let results = SubjectPhases.run(
            plan, width: 2,
            judge: { subject, rules, atOnce in
                #expect(atOnce == (rules.contains { $0.id == .can1 } ? 2 : 1))
                return calls.judge(subject, rules, meeting: rules.contains { $0.id == .can1 } ? meeting : nil)
            },
            done: { subject, _ in done.append(subject.name) })
        let sharing = calls.all.prefix(3)
        #expect(sharing.allSatisfy { $0.rules == [.can1] }, "\(calls.all)")
        #expect(calls.all.dropFirst(3).allSatisfy { !$0.rules.contains(.can1) }, "\(calls.all)")
        #expect(calls.mostAtOnce == 2)
        // LIN-5 is judged once, by the first subject of the second phase.
        #expect(calls.all.dropFirst(3).filter { $0.rules.contains(.lin5) }.count == 1)
        for (index, subject) in results.enumerated() {
            #expect(subject.map(\.rule) == [.can3, .can1, .lin5])
            #expect(subject[1].message == Self.subjects[index].name)
        }
        #expect(done == PackageVerdicts.order(of: plan).map { Self.subjects[$0].name })
    }

    @Test func aWidthOfOneJudgesEachSubjectWhole() {
        let plan = Self.subjects.map { (subject: $0, rules: [Self.racing, Self.waiting]) }
        let calls = Calls()
        let results = SubjectPhases.run(
            plan, width: 1,
            judge: { subject, rules, atOnce in
                #expect(atOnce == 1)
                return calls.judge(subject, rules, meeting: nil)
            }, done: { _, _ in })
        #expect(calls.all.map(\.subject) == ["a", "b", "c"])
        #expect(calls.all.allSatisfy { $0.rules == [.can3, .can1] })
        #expect(results.allSatisfy { $0.map(\.rule) == [.can3, .can1] })
    }
}
