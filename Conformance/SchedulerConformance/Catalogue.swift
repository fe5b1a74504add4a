/// The catalogue of rules: the single source for the runner, the printed list, the docs
/// and the JSON report.
public enum RuleCatalogue {
    /// Every rule, grouped by category in catalogue order.
    public static let all: [Rule] =
        ordering + immediate + trampoline + cancellation + current + subscription
        + recursion + timers + virtualTime + threadSafety + clocks + executors

    /// The rule with `id` (case-insensitive), if any.
    public static func rule(_ id: String) -> Rule? {
        all.first { $0.id.caseInsensitiveCompare(id) == .orderedSame }
    }
}
