import CommandSupport
import Foundation
import SchedulerConformance

/// How `conformance run` spreads a plan of subjects over the machine: most rules only wait
/// (for a timer, a sentinel, a thread's exit), and a subject's worker leaves a core idle
/// while they do, so those rules run with other subjects' workers beside them; the rules
/// that race the cores or judge the package itself then run one subject at a time.
enum SubjectPhases {
    /// Whether `rule` may run while another subject's worker runs: it neither races the
    /// cores (``Rule/needsIdleCores``) nor gives its verdict to later subjects
    /// (``Rule/judgesOnlyThePackage``, judged once, in the second phase's order).
    static func shares(_ rule: Rule) -> Bool { !rule.needsIdleCores && !rule.judgesOnlyThePackage }

    /// The results of each entry of `plan`, in its rules' order. First every subject's
    /// sharing rules, `width` workers at a time (none with a width of 1: in this process,
    /// subjects do run one after another); then, in ``PackageVerdicts/order(of:)``, each
    /// subject's other rules alone, `done` being called for each subject as it is done (in
    /// that order) so progress reads as it did when subjects ran one after another. `judge`
    /// is told how many workers may run beside the one it starts (1 in the second phase), so
    /// it can share out what the machine allows a worker.
    static func run(
        _ plan: [(subject: ConformanceSubject, rules: [Rule])], width: Int,
        judge: @escaping @Sendable (_ subject: ConformanceSubject, _ rules: [Rule], _ atOnce: Int) -> [RuleResult],
        done: (ConformanceSubject, [RuleResult]) -> Void
    ) -> [[RuleResult]] {
        let sides = width > 1
        let shares: @Sendable (Rule) -> Bool = { sides && Self.shares($0) }
        let sharing = Parallel.map(plan.count, width: width) { index in
            let rules = plan[index].rules.filter(shares)
            return rules.isEmpty ? [] : judge(plan[index].subject, rules, width)
        }
        let alonePlan = plan.map { (subject: $0.subject, rules: $0.rules.filter { !shares($0) }) }
        var packageVerdicts = PackageVerdicts()
        var results = [[RuleResult]](repeating: [], count: plan.count)
        for index in PackageVerdicts.order(of: alonePlan) {
            let (subject, rules) = alonePlan[index]
            let alone = packageVerdicts.results(of: rules, on: subject) { rules in
                rules.isEmpty ? [] : judge(subject, rules, 1)
            }
            let byRule = Dictionary(uniqueKeysWithValues: (sharing[index] + alone).map { ($0.rule, $0) })
            results[index] = plan[index].rules.map { rule in
                byRule[rule.id]
                    ?? RuleResult(
                        rule: rule.id, level: rule.level, status: .error, durationSeconds: 0,
                        message: "the run returned no result for this rule")
            }
            done(subject, results[index])
        }
        return results
    }
}
