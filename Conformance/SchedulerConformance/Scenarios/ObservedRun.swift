/// One of the suite's actions as it saw its own run: the tickets at its start and return,
/// and what it observed.
struct ObservedRun<Outcome: Hashable & Sendable>: Sendable {
    var action: Int
    var started: UInt64
    var saw: Outcome
    var returned: UInt64

    /// The runs as history entries, a start and an end each, with the intervals a
    /// subject's choices allow: a serial subject decides to start an action (and checks its
    /// handle) only after the previous one returned, so a start may take effect no earlier
    /// than that return; nothing bounds a concurrent subject's decision from below. An end
    /// may take effect at any time after the action's last ticket. Also returns the
    /// intervals in which an action was running.
    static func entries<Operation>(
        _ runs: [ObservedRun], serial: Bool, start: (Int) -> Operation, end: (Int) -> Operation, done: Outcome
    ) -> (observed: [HistoryEntry<Operation, Outcome>], busy: [ClosedRange<UInt64>]) {
        let subject = HistoryEntry<Operation, Outcome>.subject
        var entries: [HistoryEntry<Operation, Outcome>] = []
        var previousReturn: UInt64 = 0
        let ordered = runs.sorted { $0.started < $1.started }
        for run in ordered {
            let decided = serial ? min(previousReturn, run.started) : 0
            entries.append(
                HistoryEntry(start(run.action), run.saw, invoked: decided, returned: run.started, thread: subject))
            entries.append(HistoryEntry(end(run.action), done, invoked: run.returned, returned: .max, thread: subject))
            previousReturn = max(previousReturn, run.returned)
        }
        return (entries, ordered.map { $0.started...$0.returned })
    }
}
