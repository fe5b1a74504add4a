import SchedulerVocabulary
import Schedulers

extension ConformanceReport.RuleInfo {
    /// The rule's data, without its check.
    public init(_ rule: Rule) {
        self.init(
            id: rule.id, category: rule.category, title: rule.title, level: rule.level,
            capabilities: rule.requires.names, anyOf: rule.requiresAnyOf.names, excludes: rule.excludes.names,
            rationale: rule.rationale, hint: rule.hint, guarantee: rule.guarantee,
            needsWallClockStep: rule.needsWallClockStep)
    }
}

extension ConformanceReport {
    /// A report of `subjects` checked against `rules`; the summary is derived from them,
    /// with `gate` deciding which failures fail the run.
    public init(
        rules: [Rule], subjects: [SubjectReport], timing: Timing, timingScale: Double = 1, shard: Shard? = nil,
        gate: Gate = Gate(), environment: Environment = .current()
    ) {
        self.init(
            rules: rules.map(RuleInfo.init), subjects: subjects, timing: timing, timingScale: timingScale, shard: shard,
            gate: gate, environment: environment)
    }
}
