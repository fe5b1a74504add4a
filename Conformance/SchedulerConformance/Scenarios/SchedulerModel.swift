import Schedulers

/// LIN-1's specification of a real-time scheduler, from the semantics (§2, §3, §4) and the
/// ORD, CAN, CUR and REC rules: plain actions start in the order they were scheduled (serial
/// subjects) or in any order (concurrent ones), those scheduled from inside an action
/// included; a serial subject runs one at a time; an action whose handle was disposed before
/// it started (from any thread, or from inside another action) never starts; disposing one
/// that started changes nothing; each runs as the current scheduler when the subject tracks it.
/// A recursion's runs are work like any other: its first run is queued at `scheduleRecursive`,
/// a run asked for inside a run is queued once that run returned, one asked for after it
/// returned is queued at the call, and a disposed recursion never runs again. Timed work
/// (`schedule(after:)`, a repeating series) starts at no point the model fixes, since its
/// deadline is real time, but one at a time with the rest on a serial subject, never before
/// its deadline (the action's own evidence), never once disposed, and a one-shot exactly once;
/// it takes no place in the plain actions' order.
public struct SchedulerModel: SequentialModel, CustomStringConvertible {
    /// A call, or what an action saw. Actions are numbered in the order the scenario makes them.
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        /// `schedule` of action n, which makes the calls of `body` (schedules and disposals,
        /// themselves without bodies) when it runs; in a history they are entries of their own.
        case schedule(Int, body: [Operation] = [])
        /// `scheduleRecursive` of recursion n, whose run k makes the calls of `bodies[k]` (none
        /// past the last); its runs are observed as starts and returns of n.
        case scheduleRecursive(Int, bodies: [[Operation]])
        /// `schedule(after: ms)` of action n, which makes the calls of `body` when it runs.
        case scheduleAfter(Int, ms: Int, body: [Operation] = [])
        /// A repeating series n, first due after `ms`, then every `every` ms, with no leeway;
        /// its ticks are observed as starts and returns of n.
        case scheduleRepeating(Int, ms: Int, every: Int)
        /// Inside a run of recursion n, that run's `reschedule`.
        case rerun(Int)
        /// The `reschedule` of recursion n's latest run, called from elsewhere (a thread, another
        /// action): queued at once when no run of n is going on (nothing, when none ran yet).
        case reschedule(Int)
        /// `dispose()` of action n's handle (nothing, when n was not scheduled yet).
        case dispose(Int)
        /// A step the subject declared (``SchedulerModel/ExtraOperation``), by name.
        case extra(String)
        /// Observed: action n started.
        case start(Int)
        /// Observed: action n returned.
        case end(Int)
        /// Observed: everything scheduled has run or been skipped.
        case quiescent

        /// Whether it may queue work.
        var isSchedule: Bool {
            switch self {
            case .schedule, .scheduleRecursive, .scheduleAfter, .scheduleRepeating, .rerun, .reschedule: true
            case .dispose, .extra, .start, .end, .quiescent: false
            }
        }

        public var description: String {
            switch self {
            case .schedule(let n, let body):
                "schedule #\(n)" + (body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }")
            case .scheduleRecursive(let n, let bodies): describe(recursion: n, bodies)
            case .scheduleAfter(let n, let ms, let body):
                "schedule #\(n) after \(ms) ms"
                    + (body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }")
            case .scheduleRepeating(let n, let ms, let every):
                "schedule #\(n) after \(ms) ms, repeating every \(every) ms"
            case .rerun(let n): "reschedule #\(n) inside its run"
            case .reschedule(let n): "reschedule #\(n)"
            case .dispose(let n): "dispose #\(n)"
            case .extra(let name): name
            case .start(let n): "#\(n) starts"
            case .end(let n): "#\(n) returns"
            case .quiescent: "all done"
            }
        }
    }

    /// What a call returned or an action saw.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case done
        /// A dispose found no handle to dispose: the `schedule` that makes it had not returned
        /// yet, so the subject was not called at all.
        case noHandle
        /// An action ran; whether it saw the subject as the current scheduler, when the
        /// subject claims to track it (nil otherwise).
        case ran(asCurrent: Bool?)
        /// What was still pending when the scenario ended, by number.
        case pending([Int])
        /// A timed action or tick started before its deadline, by the subject's own `now`.
        case early

        public var description: String {
            switch self {
            case .done: "done"
            case .noHandle: "no handle yet"
            case .ran(let current):
                current.map { $0 ? "ran as the current scheduler" : "ran, not as the current scheduler" } ?? "ran"
            case .pending(let actions):
                actions.isEmpty ? "nothing pending" : "#\(actions.map(String.init).joined(separator: ", #")) pending"
            case .early: "started before its deadline"
            }
        }
    }

    /// An operation an adopter's scheduler has beyond the protocol (see `ScenarioOperation`).
    public typealias ExtraOperation = ScenarioOperation

    let serial: Bool
    let tracksCurrent: Bool
    let extras: [ExtraOperation]
    /// Scheduled, not yet started nor disposed, oldest first (a recursion's runs by its number).
    var pending: [Int] = []
    /// Started and not yet returned.
    var running: Set<Int> = []
    /// Runs asked for inside a recursion's run, queued once it returns.
    var owed: [Int: Int] = [:]
    /// Runs owed by a run that returned, which its scheduler queues one at a time, between
    /// other calls, and all before anything starts.
    var returning: [Int: Int] = [:]
    /// Disposed: a recursion among them never runs again.
    var disposed: Set<Int> = []
    /// One-shot timed actions not yet started nor disposed.
    var timers: Set<Int> = []
    /// Repeating series not yet disposed.
    var series: Set<Int> = []

    /// The model of a subject that is `serial` or not, and tracks the current scheduler or not.
    public init(serial: Bool, tracksCurrent: Bool, extras: [ExtraOperation] = []) {
        self.serial = serial
        self.tracksCurrent = tracksCurrent
        self.extras = extras
    }

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: SchedulerModel)] {
        switch operation {
        case .start, .quiescent: queuingOwed(all: true)[0].applyNow(operation)
        default: queuingOwed(all: false).flatMap { $0.applyNow(operation) }
        }
    }

    /// This state with the runs a returned run owes queued: all of them, or each number of
    /// them (its scheduler may not have got to the rest yet).
    private func queuingOwed(all: Bool) -> [SchedulerModel] {
        if all {
            var next = self
            for (n, count) in returning.sorted(by: { $0.key < $1.key }) {
                next.pending += repeatElement(n, count: count)
            }
            next.returning = [:]
            return [next]
        }
        guard let (n, count) = returning.first else { return [self] }
        return (0...count).map { queued in
            var next = self
            next.pending += repeatElement(n, count: queued)
            next.returning[n] = queued == count ? nil : count - queued
            return next
        }
    }

    private func applyNow(_ operation: Operation) -> [(outcome: Outcome, next: SchedulerModel)] {
        var next = self
        switch operation {
        case .schedule(let n, _), .scheduleRecursive(let n, _):
            next.pending.append(n)
        case .scheduleAfter(let n, _, _):
            next.timers.insert(n)
        case .scheduleRepeating(let n, _, _):
            next.series.insert(n)
        case .rerun(let n):
            guard running.contains(n) else { return [] }
            if !disposed.contains(n) { next.owed[n, default: 0] += 1 }
        case .reschedule(let n):
            guard !disposed.contains(n) else { return [(.done, self), (.noHandle, self)] }
            next.pending.append(n)
            guard running.contains(n) else { return [(.done, next), (.noHandle, self)] }
            // A run is going on: the latest run's `reschedule` may be that run's (counted, queued
            // once it returns) or, where each run has its own, an earlier one's (queued now).
            var counted = self
            counted.owed[n, default: 0] += 1
            return [(.done, counted), (.done, next), (.noHandle, self)]
        case .dispose(let n):
            next.pending.removeAll { $0 == n }
            next.owed[n] = nil
            next.returning[n] = nil
            next.disposed.insert(n)
            next.timers.remove(n)
            next.series.remove(n)
            return [(.done, next), (.noHandle, self)]
        case .extra(let name):
            guard let extra = extras.first(where: { $0.name == name }) else { return [] }
            extra.step(&next.pending)
        case .start(let n) where timers.contains(n) || series.contains(n):
            // Due at a real time the model does not know: whenever nothing else runs (serial),
            // a series' ticks one at a time.
            guard serial ? running.isEmpty : !running.contains(n) else { return [] }
            next.timers.remove(n)
            next.running.insert(n)
            return [(.ran(asCurrent: tracksCurrent ? true : nil), next)]
        case .start(let n):
            // A serial subject starts the oldest when nothing runs; any other, any pending one.
            guard serial ? (running.isEmpty && pending.first == n) : pending.contains(n) else { return [] }
            next.pending.remove(at: next.pending.firstIndex(of: n)!)
            next.running.insert(n)
            return [(.ran(asCurrent: tracksCurrent ? true : nil), next)]
        case .end(let n):
            guard running.contains(n) else { return [] }
            next.running.remove(n)
            if let count = next.owed.removeValue(forKey: n) { next.returning[n] = count }
        case .quiescent:
            return [(.pending(pending + running.sorted() + timers.sorted()), self)]
        }
        return [(.done, next)]
    }

    public var description: String {
        let waiting =
            pending.isEmpty ? "nothing pending" : "pending #" + pending.map(String.init).joined(separator: ", #")
        let timed =
            timers.sorted().map { "#\($0) waiting for its deadline" } + series.sorted().map { "series #\($0) live" }
        let busy =
            running.isEmpty
            ? "nothing running" : "running #" + running.sorted().map(String.init).joined(separator: ", #")
        let asked =
            owed.sorted { $0.key < $1.key }.map { "\($0.value) run(s) of #\($0.key) owed" }
            + returning.map { "\($0.value) run(s) of #\($0.key) still to queue" }
        return ([waiting, busy] + timed + asked).joined(separator: "; ")
    }
}
