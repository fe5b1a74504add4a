/// A refused history, told for the person who must fix the subject: the smallest scenario
/// still refused, what each call and action gave, the longest order the model accepted,
/// why each thing that could have come next is refused there, and how to replay it.
struct Refutation<Model: SequentialModel>: CustomStringConvertible {
    /// The rule that found it; nil for a model-checked test of the package's own types.
    let rule: RuleID?
    let profile: String
    let subject: String
    let seed: UInt64
    let scenario: Scenario<Model.Operation>
    let original: Scenario<Model.Operation>
    let execution: ScenarioExecution<Model>
    let refusal: Linearizability.Refusal<Model>

    var description: String {
        let history = execution.history
        let origin = (history.map(\.invoked).filter { $0 > 0 }.min() ?? 1) - 1
        func interval(_ entry: HistoryEntry<Model.Operation, Model.Outcome>) -> String {
            let from = entry.invoked > origin ? "\(entry.invoked - origin)" : "…"
            let to = entry.returned == .max ? "never" : "\(entry.returned - origin)"
            return "[\(from)–\(to)]"
        }
        func who(_ thread: Int) -> String {
            switch thread {
            case HistoryEntry<Model.Operation, Model.Outcome>.subject: "action  "
            case 0: "sequence"
            default: "thread \(thread)"
            }
        }
        func line(_ index: Int) -> String {
            let entry = history[index]
            return "\(who(entry.thread)) \(interval(entry)) \(entry.operation) → \(entry.outcome)"
        }
        let observed = history.indices.sorted {
            (history[$0].returned, history[$0].invoked) < (history[$1].returned, history[$1].invoked)
        }
        var lines = [
            "no one-at-a-time order of the calls gives what the \(profile) did (seed \(seed)).",
            """
            Smallest scenario still refused \
            (\(scenario.shape)\(scenario == original ? "" : "; shrunk from \(original.shape)")):
            """,
            scenario.description,
            """
            What happened, by when it ended (tickets are one global order; an entry that ended before another began \
            must come first):
            """,
        ]
        lines += observed.map { "  " + line($0) }
        let accepted = refusal.prefix.map { "\(history[$0].operation)" }
        lines.append(
            accepted.isEmpty
                ? "The model accepts no first step; at the start (\(refusal.state)):"
                : "The longest order the model accepts: \(accepted.joined(separator: ", ")); then (\(refusal.state)):")
        for candidate in refusal.candidates {
            let entry = history[candidate.entry]
            let allowed =
                candidate.allowed.isEmpty
                ? "cannot happen now"
                : "would give \(Set(candidate.allowed.map(\.description)).sorted().joined(separator: " or "))"
            lines.append("  \(entry.operation) gave \(entry.outcome), but the model \(allowed)")
        }
        if refusal.candidates.isEmpty { lines.append("  nothing may come next in real-time order") }
        if let rule {
            lines.append("Replay: conformance replay --subject \(subject) --rule \(rule) --seed \(seed)")
        } else {
            lines.append("Replay: explore again with Exploration(seed: \(seed), replay: true)")
        }
        return lines.joined(separator: "\n")
    }
}
