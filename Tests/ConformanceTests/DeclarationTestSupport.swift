import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// Runs `rules` against `subject` and returns each result by its rule; a rule whose
/// evidence did not come (inconclusive: the machine stalled the suite's own timers) gathers
/// more, run after run, until it is conclusive or a minute has passed, so that a verdict is
/// judged. The tool's own "must happen" bound:
/// these verdicts include passes, which the other tests running beside must not starve.
func judge(_ subject: ConformanceSubject, _ rules: RuleID...) async -> [RuleID: RuleResult] {
    await OwnThread.run(.rules) { judgeHere(subject, rules) }
}

/// As ``judge(_:_:)``, one run of each rule: for a verdict expected to be inconclusive,
/// which more runs would only wait out the minute for.
func judgeOnce(_ subject: ConformanceSubject, _ rules: RuleID...) async -> [RuleID: RuleResult] {
    await OwnThread.run(.rules) { judgeHere(subject, rules, untilConclusive: false) }
}

func judgeHere(_ subject: ConformanceSubject, _ rules: [RuleID], untilConclusive: Bool = true) -> [RuleID: RuleResult] {
    let timing = Timing(
        mustHappen: .seconds(10), quietWindow: .milliseconds(100), lateness: .milliseconds(100),
        ruleTimeout: .seconds(60))
    var results: [RuleID: RuleResult] = [:]
    for rule in rules {
        let giveUp = ContinuousClock.now + .seconds(60)
        repeat {
            // A short exploration: these tests judge a model's choice, which every scenario
            // with a due sleep or an advance shows, and the cores are shared with other
            // tests whose explorations need them.
            let result = ConformanceRunner.run(
                subject, rules: [RuleCatalogue.rule(rule)], timing: timing,
                exploration: Exploration(budget: .milliseconds(300), meetings: 30))[0]
            results[rule] = result
            // A model-checked rule's evidence is lacking when other tests hold the cores: it
            // is judged once (see `passesOrLacksEvidence`), not retried at their expense.
            if !untilConclusive || result.status != .inconclusive || RuleCatalogue.rule(rule).category == .modelChecked
            {
                break
            }
        } while ContinuousClock.now < giveUp
    }
    return results
}

/// Whether `result` passed; a model-checked rule may also lack evidence, as in
/// ClockAndExecutorRuleTests: in a process full of parallel tests (and under the sanitizer)
/// its threads seldom meet, and the command runs it alone. It never fails.
func passesOrLacksEvidence(_ result: RuleResult) -> Bool {
    result.status == .passed
        || (result.status == .inconclusive
            && RuleCatalogue.rule(result.rule).category == .modelChecked)
}
