/// The catalogue of rules: the single source for the runner, the printed list, the docs
/// and the JSON report.
public enum RuleCatalogue {
    /// Every rule, grouped by category in catalogue order.
    public static let all: [Rule] =
        ordering + immediate + trampoline + cancellation + current + subscription
        + recursion + timers + virtualTime + threadSafety + clocks + executors + modelChecked

    /// The rule with `id`.
    public static func rule(_ id: RuleID) -> Rule {
        guard let rule = all.first(where: { $0.id == id }) else {
            preconditionFailure("\(id) is published but not in the catalogue")
        }
        return rule
    }

    /// The rule whose ID is written `text` (case-insensitive), if any: for IDs read from a
    /// command line or a report.
    public static func rule(_ text: String) -> Rule? {
        RuleID(rawValue: text).map(rule)
    }
}
