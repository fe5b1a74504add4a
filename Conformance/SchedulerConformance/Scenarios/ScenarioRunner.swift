import Dispatch
import SchedulerProbes
import Schedulers
import Synchronization

/// One fresh instance of a subject, ready to run one scenario: how each operation is
/// carried out, and how the run is finished.
public struct ScenarioInstance<Model: SequentialModel>: Sendable {
    /// The model's state for a fresh instance.
    public let initial: Model
    /// Carries out one operation on the calling thread and says what it gave, as history
    /// entries: usually one, but a call that does several things in turn (an advance of
    /// virtual time, which starts, runs what is due, and settles the time) gives one entry
    /// per thing, all sharing the call's interval.
    public let perform: @Sendable (Model.Operation) -> [(Model.Operation, Model.Outcome)]
    /// Waits until nothing the scenario started is still under way, and returns what the
    /// suite's actions observed (entries of thread ``HistoryEntry/subject``) and the ticket
    /// intervals in which the subject was running one of them.
    public let finish:
        @Sendable () throws(RuleFailure) -> (
            observed: [HistoryEntry<Model.Operation, Model.Outcome>], busy: [ClosedRange<UInt64>]
        )

    /// An instance of the subject as these closures reach it.
    public init(
        initial: Model, perform: @escaping @Sendable (Model.Operation) -> [(Model.Operation, Model.Outcome)],
        finish:
            @escaping @Sendable () throws(RuleFailure) -> (
                observed: [HistoryEntry<Model.Operation, Model.Outcome>], busy: [ClosedRange<UInt64>]
            )
    ) {
        self.initial = initial
        self.perform = perform
        self.finish = finish
    }
}

/// One run of a scenario: its history, and how many of the situations that make it risky
/// happened.
public struct ScenarioExecution<Model: SequentialModel>: Sendable {
    /// Every call and observation, as the checker reads them.
    public var history: [HistoryEntry<Model.Operation, Model.Outcome>]
    /// The model's state before the first operation.
    public var initial: Model
    /// Pairs of calls from different threads whose intervals met, and calls made while the
    /// subject was running one of the suite's actions: zero means the run was sequential in
    /// all but name, and judged nothing a sequential rule would not.
    public var overlaps: Int
    /// The kind of the run's meeting, if it happened: both parties on a core at once,
    /// leaving together.
    public var met: Jitter.MeetingKind?
}

/// Runs a scenario's parts on threads that meet at a barrier and are then spread by seeded
/// jitter, recording each call's interval with ``HistoryClock`` tickets.
public enum ScenarioRunner {
    /// Runs `scenario` once on `instance`, its parallel part on `crew`; a thread whose calls
    /// do not all return within `bound` is reported as a hang.
    public static func run<Model>(
        _ scenario: Scenario<Model.Operation>, on instance: ScenarioInstance<Model>, jitter: Jitter,
        crew: ThreadCrew, within bound: Duration
    ) throws(RuleFailure) -> ScenarioExecution<Model> {
        var history = sequential(scenario.initial, on: instance)
        let threads = scenario.parallel.count
        let logs = (0..<threads).map { _ in Box<[HistoryEntry<Model.Operation, Model.Outcome>]>([]) }
        let arrived = Atomic<Int>(0)
        let finished = crew.run(threads, within: bound) { index in
            let spins = jitter.beforeCalls(of: index + 1, count: scenario.parallel[index].count)
            arrived.add(1, ordering: .acquiringAndReleasing)
            _ = spinWait(upTo: bound) { arrived.load(ordering: .acquiring) == threads }
            var entries: [HistoryEntry<Model.Operation, Model.Outcome>] = []
            for (position, (operation, pause)) in zip(scenario.parallel[index], spins).enumerated() {
                if pause > .zero { spin(pause) }
                jitter.beforeCall(position, of: index + 1)
                entries += call(operation, on: instance, thread: index + 1)
                jitter.afterCall(position, of: index + 1)
            }
            logs[index].value = entries
        }
        guard finished else {
            throw RuleFailure(
                "a call of the parallel part did not return within \(bound):\n\(scenario)", kind: .hung)
        }
        for log in logs { history += log.value }
        history += sequential(scenario.final, on: instance)
        let (observed, busy) = try instance.finish()
        let overlaps = countOverlaps(history.filter { $0.thread > 0 }, busy: busy)
        return ScenarioExecution(
            history: history + observed, initial: instance.initial, overlaps: overlaps,
            met: jitter.meeting.flatMap { $0.happened ? $0.kind : nil })
    }

    private static func sequential<Model>(_ operations: [Model.Operation], on instance: ScenarioInstance<Model>)
        -> [HistoryEntry<Model.Operation, Model.Outcome>]
    {
        operations.flatMap { call($0, on: instance, thread: 0) }
    }

    private static func call<Model>(_ operation: Model.Operation, on instance: ScenarioInstance<Model>, thread: Int)
        -> [HistoryEntry<Model.Operation, Model.Outcome>]
    {
        let invoked = HistoryClock.tick()
        let steps = instance.perform(operation)
        let returned = HistoryClock.tick()
        return steps.map { HistoryEntry($0.0, $0.1, invoked: invoked, returned: returned, thread: thread) }
    }

    /// Pairs of calls from different threads that met, plus calls made while an action ran.
    static func countOverlaps<Operation, Outcome>(
        _ calls: [HistoryEntry<Operation, Outcome>], busy: [ClosedRange<UInt64>]
    ) -> Int {
        var count = 0
        for (offset, first) in calls.enumerated() {
            for second in calls[(offset + 1)...]
            where second.thread != first.thread && first.invoked < second.returned && second.invoked < first.returned {
                count += 1
            }
            count += busy.filter { $0.contains(first.invoked) || $0.contains(first.returned) }.count
        }
        return count
    }
}
