/// Decides whether a concurrent history has a sequential explanation: an order of its
/// entries that respects real time (an entry that returned before another was invoked comes
/// first) and in which the model, applying them one by one, gives every observed outcome.
///
/// The search is Wing and Gong's, with Lowe's memoisation: a depth-first walk over which
/// entries are already placed and the model's state, each pair visited once. Scenarios are
/// small (a few dozen entries), so it ends in microseconds for a linearizable history and
/// within ``stateLimit`` states otherwise.
public enum Linearizability {
    /// What the search concluded.
    public enum Verdict<Model: SequentialModel> {
        /// An explanation: the entries' indices in sequential order.
        case linearizable([Int])
        /// No explanation exists; the search's deepest attempt says why.
        case refused(Refusal<Model>)
        /// The search gave up after ``stateLimit`` states without an answer.
        case undecided
    }

    /// The nearest the search came to explaining a refused history.
    public struct Refusal<Model: SequentialModel> {
        /// The longest real-time-respecting prefix the model accepted, as entry indices.
        public var prefix: [Int]
        /// The model's state after that prefix.
        public var state: Model
        /// Each entry that could have come next, with what the model allows it to give
        /// there (empty: it cannot happen in that state).
        public var candidates: [(entry: Int, allowed: [Model.Outcome])]
    }

    /// How many (placed set, state) pairs the search visits before it gives up.
    public static let stateLimit = 500_000

    /// Whether `history` is linearizable with respect to the model starting at `initial`.
    public static func check<Model: SequentialModel>(
        _ history: [HistoryEntry<Model.Operation, Model.Outcome>], from initial: Model
    ) -> Verdict<Model> {
        var search = Search<Model>(history: history)
        if search.explore(initial) { return .linearizable(search.order) }
        if search.visited.count >= stateLimit { return .undecided }
        return .refused(search.deepest ?? Refusal<Model>(prefix: [], state: initial, candidates: []))
    }

    private struct Placed: Hashable {
        var words: [UInt64]
        init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }
        func contains(_ index: Int) -> Bool { words[index >> 6] & (1 << UInt64(index & 63)) != 0 }
        mutating func insert(_ index: Int) { words[index >> 6] |= 1 << UInt64(index & 63) }
        mutating func remove(_ index: Int) { words[index >> 6] &= ~(1 << UInt64(index & 63)) }
    }

    private struct Visit<Model: Hashable>: Hashable {
        var placed: Placed
        var state: Model
    }

    private struct Search<Model: SequentialModel> {
        let history: [HistoryEntry<Model.Operation, Model.Outcome>]
        var placed: Placed
        var order: [Int] = []
        var visited = Set<Visit<Model>>()
        var deepest: Refusal<Model>?

        init(history: [HistoryEntry<Model.Operation, Model.Outcome>]) {
            self.history = history
            self.placed = Placed(count: history.count)
        }

        /// Entries that may come next: those invoked before every unplaced entry returned.
        func candidates() -> [Int] {
            var earliestReturn = UInt64.max
            for index in history.indices where !placed.contains(index) {
                earliestReturn = min(earliestReturn, history[index].returned)
            }
            return history.indices.filter { !placed.contains($0) && history[$0].invoked <= earliestReturn }
        }

        mutating func explore(_ state: Model) -> Bool {
            if order.count == history.count { return true }
            guard visited.count < stateLimit, visited.insert(Visit(placed: placed, state: state)).inserted else {
                return false
            }
            let next = candidates()
            var options: [(entry: Int, allowed: [Model.Outcome])] = []
            for index in next {
                let entry = history[index]
                let steps = state.apply(entry.operation)
                options.append((index, steps.map(\.outcome)))
                for step in steps where step.outcome == entry.outcome {
                    placed.insert(index)
                    order.append(index)
                    if explore(step.next) { return true }
                    order.removeLast()
                    placed.remove(index)
                }
            }
            if order.count >= (deepest?.prefix.count ?? -1) {
                deepest = Refusal(prefix: order, state: state, candidates: options)
            }
            return false
        }
    }
}
