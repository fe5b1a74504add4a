/// Decides whether a concurrent history has a sequential explanation: an order of its
/// entries that respects real time (an entry that returned before another was invoked comes
/// first) and in which the model, applying them one by one, gives every observed outcome.
///
/// The search is Wing and Gong's, with Lowe's memoisation: a depth-first walk over which
/// entries are already placed and the model's state, each pair visited once. Scenarios are
/// small (a few dozen entries), so it ends in microseconds for a linearizable history and
/// within ``stateLimit`` states or ``timeLimit`` otherwise.
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

    /// How long one search may take before it gives up: a history it cannot decide in this
    /// time (its calls stretched over each other on a loaded machine) judges nothing, and a
    /// rule must not spend its budget, or hang, on one.
    public static let timeLimit = Duration.seconds(2)

    /// Whether `history` is linearizable with respect to the model starting at `initial`;
    /// `.undecided` past ``stateLimit`` states or `within` (``timeLimit`` unless given).
    public static func check<Model: SequentialModel>(
        _ history: [HistoryEntry<Model.Operation, Model.Outcome>], from initial: Model,
        within bound: Duration = timeLimit
    ) -> Verdict<Model> {
        var search = Search<Model>(history: history, deadline: ContinuousClock.now + bound)
        if search.explore(initial) { return .linearizable(search.order) }
        if search.gaveUp { return .undecided }
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

    /// The walk. Its inner loop is written with plain loops over arrays of tickets: the tests
    /// and most adopters run it unoptimised, where a key path or a generic closure per visited
    /// state costs more than the state (a key path in a generic context is instantiated
    /// again, demangling its type, at every use).
    private struct Search<Model: SequentialModel> {
        let history: [HistoryEntry<Model.Operation, Model.Outcome>]
        /// Each entry's tickets, apart, so finding the candidates copies no entry.
        private let invoked: [UInt64]
        private let returned: [UInt64]
        private let deadline: ContinuousClock.Instant
        var placed: Placed
        var order: [Int] = []
        var visited = Set<Visit<Model>>()
        var deepest: Refusal<Model>?
        /// Whether the search stopped at its state or time limit.
        private(set) var gaveUp = false

        init(history: [HistoryEntry<Model.Operation, Model.Outcome>], deadline: ContinuousClock.Instant) {
            self.history = history
            self.invoked = history.map { $0.invoked }
            self.returned = history.map { $0.returned }
            self.deadline = deadline
            self.placed = Placed(count: history.count)
        }

        /// Entries that may come next: those invoked before every unplaced entry returned.
        func candidates() -> [Int] {
            var earliestReturn = UInt64.max
            for index in 0..<returned.count where !placed.contains(index) && returned[index] < earliestReturn {
                earliestReturn = returned[index]
            }
            var next: [Int] = []
            for index in 0..<invoked.count where !placed.contains(index) && invoked[index] <= earliestReturn {
                next.append(index)
            }
            return next
        }

        mutating func explore(_ state: Model) -> Bool {
            if order.count == history.count { return true }
            // The clock is read once every 1,024 states: reading it costs more than a state.
            if visited.count >= stateLimit || (visited.count & 1023 == 1023 && ContinuousClock.now >= deadline) {
                gaveUp = true
            }
            guard !gaveUp, visited.insert(Visit(placed: placed, state: state)).inserted else { return false }
            let next = candidates()
            for index in next {
                for step in state.apply(history[index].operation) where step.outcome == history[index].outcome {
                    placed.insert(index)
                    order.append(index)
                    if explore(step.next) { return true }
                    order.removeLast()
                    placed.remove(index)
                }
            }
            if order.count >= (deepest?.prefix.count ?? -1) {
                // What each candidate could have given here, for the refusal's explanation only.
                let options = next.map { index in
                    (entry: index, allowed: state.apply(history[index].operation).map { $0.outcome })
                }
                deepest = Refusal(prefix: order, state: state, candidates: options)
            }
            return false
        }
    }
}
