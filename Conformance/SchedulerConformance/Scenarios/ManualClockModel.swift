/// LIN-3's specification of a manual clock, from the semantics (§8) and the CLK rules: a
/// sleep takes its deadline at one moment of its task's life; a deadline at or before `now`
/// returns at once; a later one waits until an advance or a run reaches it; cancelling a
/// sleeper that has not been resumed ends it with `CancellationError`, and one cancelled
/// before it slept throws as it goes to sleep; an advance resumes every sleeper due by its
/// target, those that went to sleep meanwhile included, then sets the time to the target;
/// `run()` resumes every sleeper and leaves the time at the last deadline it reached; time
/// never goes back, and moves only inside a driving call. Deadlines are milliseconds after
/// the clock's time when the scenario began.
public struct ManualClockModel: SequentialModel, CustomStringConvertible {
    /// A call, or what one of the suite's sleeping tasks did. Sleepers are numbered in the
    /// order the scenario makes them.
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        /// A call: start a task that sleeps until the deadline (ms).
        case sleep(Int, until: Int)
        /// A call: cancel sleeper k's task.
        case cancel(Int)
        case now
        /// A driving call (`advance(by:)` or `run()`), in a scenario; in a history, the
        /// moment it begins.
        case drive(VirtualTimeModel.Target)
        /// In a history: the moment a driving call settles the time and returns.
        case settle(VirtualTimeModel.Target)
        /// A call: let every task run until it suspends (by an advance by zero, recorded as
        /// such, when they run on the clock's executor), then say which sleepers have not ended.
        case unfinished
        /// Observed: sleeper k's sleep took its deadline.
        case register(Int)
        /// Observed: sleeper k was resumed.
        case resume(Int)
        /// Observed: sleeper k's sleep ended (returned, with the time its task then read, or threw).
        case end(Int)

        public var description: String {
            switch self {
            case .sleep(let k, let ms): "sleeper #\(k) sleeps until \(ms) ms"
            case .cancel(let k): "cancel sleeper #\(k)"
            case .now: "now"
            case .drive(let target): target == .all ? "run()" : "\(target)"
            case .settle(let target): "\(target == .all ? "run()" : "\(target)") returns"
            case .unfinished: "settle, then list the unfinished sleepers"
            case .register(let k): "#\(k) goes to sleep"
            case .resume(let k): "#\(k) is resumed"
            case .end(let k): "#\(k)'s sleep ends"
            }
        }
    }

    /// What a call returned or a sleeper saw.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case done
        /// A cancel found no task: the call that starts it had not returned yet.
        case noTask
        /// `now`, in nanoseconds after the origin.
        case time(Int64)
        /// The sleepers whose sleep had not ended.
        case sleeping(Set<Int>)
        /// A sleep returned; its task then read this time (nanoseconds).
        case returned(at: Int64)
        case cancelled
        /// A sleep threw something other than `CancellationError`.
        case threw(String)

        public var description: String {
            switch self {
            case .done: "done"
            case .noTask: "no task yet"
            case .time(let ns): VirtualTimeModel.Outcome.milliseconds(ns)
            case .sleeping(let set): set.isEmpty ? "none" : set.sorted().map { "#\($0)" }.joined(separator: ", ")
            case .returned(let ns): "returned, then read \(VirtualTimeModel.Outcome.milliseconds(ns))"
            case .cancelled: "threw CancellationError"
            case .threw(let error): "threw \(error)"
            }
        }
    }

    /// Where one sleeper is.
    private enum Sleeper: Hashable {
        /// Its task was started; it has not gone to sleep (cancelled before, if so).
        case started(cancelled: Bool)
        /// Asleep until its deadline.
        case asleep
        /// Its sleep returns (resumed, or its deadline had passed).
        case resumed
        case cancelled
        /// Its end was observed.
        case ended
    }

    var now: Int64 = 0
    /// Each sleeper's deadline (nanoseconds) and where it is, at its number: an array, not a
    /// dictionary, because the checker hashes and compares a state at every step of its
    /// search, and sleepers are few and numbered from 1.
    private var deadlines = Numbered<Int64>()
    private var sleepers = Numbered<Sleeper>()
    private var driving: VirtualTimeModel.Target?
    private var limit: Int64 = 0

    /// Whether a sleep until exactly `now` parks until the next advance (a declared
    /// difference, ``DueSleep/parksUntilNextAdvance``) instead of returning at once.
    private let dueSleepParks: Bool

    /// A manual clock with no sleeper, at the scenario's origin; `dueSleep` is what it does
    /// with a sleep until exactly `now`.
    public init(dueSleep: DueSleep = .returnsAtOnce) {
        dueSleepParks = dueSleep == .parksUntilNextAdvance
    }

    private func asleep(dueBy time: Int64) -> Bool {
        sleepers.contains { k, sleeper in sleeper == .asleep && deadlines[k]! <= time }
    }

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: ManualClockModel)] {
        var next = self
        switch operation {
        case .sleep(let k, let ms):
            next.deadlines[k] = Int64(ms) * 1_000_000
            next.sleepers[k] = .started(cancelled: false)
        case .cancel(let k):
            switch sleepers[k] {
            case .started?: next.sleepers[k] = .started(cancelled: true)
            case .asleep?: next.sleepers[k] = .cancelled
            default: break
            }
            return [(.done, next), (.noTask, self)]
        case .now:
            // Inside a driving call the time may show any point it has reached on its way.
            guard driving != nil, limit != .max, limit > now else { return [(.time(now), self)] }
            return [(.time(now), self), (.time(limit), with(now: limit))]
        case .drive(let target):
            guard driving == nil else { return [] }
            next.driving = target
            if case .by(let ms) = target { next.limit = now + Int64(ms) * 1_000_000 }
            if target == .all { next.limit = .max }
        case .settle(let target):
            guard driving == target else { return [] }
            next.driving = nil
            if target == .all {
                guard !sleepers.contains({ $1 == .asleep }) else { return [] }
            } else {
                guard !asleep(dueBy: limit) else { return [] }
                next.now = max(now, limit)
            }
        case .unfinished:
            guard driving == nil, !sleepers.contains({ if case .started = $1 { true } else { false } })
            else { return [] }
            let waiting = Set(sleepers.numbers { $0 == .asleep })
            return [(.sleeping(waiting), self)]
        case .register(let k):
            guard case .started(let cancelled) = sleepers[k], let deadline = deadlines[k] else { return [] }
            let due = dueSleepParks ? deadline < now : deadline <= now
            switch (cancelled, due) {
            // A deadline already past may be checked before cancellation or after.
            case (true, true): return [(.done, with(k, .cancelled)), (.done, with(k, .resumed))]
            case (true, false): next.sleepers[k] = .cancelled
            case (false, true): next.sleepers[k] = .resumed
            case (false, false): next.sleepers[k] = .asleep
            }
        case .resume(let k):
            guard let deadline = deadlines[k] else { return [] }
            switch sleepers[k] {
            case .resumed?: return [(.done, self)]
            case .asleep? where driving != nil && deadline <= limit:
                next.sleepers[k] = .resumed
                next.now = max(now, deadline)
            default: return []
            }
        case .end(let k):
            return ending(k)
        }
        return [(.done, next)]
    }

    /// The ways sleeper k's sleep may end now: returned once resumed (its task reading a
    /// time at or after its deadline and no later than the clock can be), or cancelled.
    private func ending(_ k: Int) -> [(outcome: Outcome, next: ManualClockModel)] {
        guard let deadline = deadlines[k] else { return [] }
        switch sleepers[k] {
        case .resumed?:
            let reachable = driving == nil || limit == .max || limit <= now ? [now] : [now, limit]
            return reachable.filter { $0 >= deadline }.map { (.returned(at: $0), with(k, .ended).with(now: $0)) }
        case .cancelled?:
            return [(.cancelled, with(k, .ended))]
        default:
            return []
        }
    }

    private func with(_ k: Int, _ state: Sleeper) -> ManualClockModel {
        var copy = self
        copy.sleepers[k] = state
        return copy
    }

    private func with(now time: Int64) -> ManualClockModel {
        var copy = self
        copy.now = max(now, time)
        return copy
    }

    public var description: String {
        let asleep = sleepers.numbers { $0 == .asleep }
            .map { "#\($0) until \(VirtualTimeModel.Outcome.milliseconds(deadlines[$0]!))" }
        return "now \(VirtualTimeModel.Outcome.milliseconds(now)); "
            + (asleep.isEmpty ? "no sleeper asleep" : "asleep " + asleep.joined(separator: ", "))
            + (driving.map { "; inside \($0 == .all ? "run()" : "\($0)")" } ?? "")
    }
}

/// Values at small numbers (a sleeper's, from 1): a dictionary's interface on an array,
/// cheap to hash, compare and copy.
private struct Numbered<Value: Hashable & Sendable>: Hashable, Sendable {
    private var slots: [Value?] = []

    subscript(number: Int) -> Value? {
        get { number < slots.count ? slots[number] : nil }
        set {
            if number >= slots.count { slots += Array(repeating: nil, count: number + 1 - slots.count) }
            slots[number] = newValue
        }
    }

    /// Whether some number's value satisfies `predicate`.
    func contains(_ predicate: (Int, Value) -> Bool) -> Bool {
        for number in slots.indices { if let value = slots[number], predicate(number, value) { return true } }
        return false
    }

    /// The numbers whose values satisfy `predicate`, in order.
    func numbers(where predicate: (Value) -> Bool) -> [Int] {
        slots.indices.filter { slots[$0].map(predicate) ?? false }
    }
}
