/// LIN-2's specification of a virtual-time scheduler, from the semantics (§2, §6, §8) and
/// the VT rules: actions run only inside a driving call (advance, step, run), on its thread,
/// one at a time, in order of (time, order of scheduling); a deadline already past runs at
/// the present; each runs with `now` at its time; an advance runs everything due at or
/// before its target (before it, for a subject that declares `.advanceTarget(.exclusive)`),
/// work scheduled meanwhile included, then sets the time to the target;
/// a step runs the earliest action; time never goes back; a disposed action never starts.
/// A recursion's runs are actions for the present: its first queued at `scheduleRecursive`,
/// one asked for inside a run once that run returned, one asked for later at once; a
/// disposed recursion never runs again (a step may still have taken a run it then skips).
/// Times are milliseconds after the scheduler's time when the scenario began.
public struct VirtualTimeModel: SequentialModel, CustomStringConvertible {
    /// What a driving call moves towards.
    public enum Target: Hashable, Sendable, CustomStringConvertible {
        case by(Int)
        case to(Int)
        case step, all

        public var description: String {
            switch self {
            case .by(let ms): "advance(by: \(ms) ms)"
            case .to(let ms): "advance(to: \(ms) ms)"
            case .step: "step()"
            case .all: "run every pending action"
            }
        }
    }

    /// A call, or what an action saw. Actions are numbered in the order the scenario makes them.
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        /// `schedule` of action n for the present, or for a time (`schedule(at:)`); the
        /// action makes the calls of `body` (schedules and disposals, without bodies) when it
        /// runs, each an entry of its own in a history.
        case schedule(Int, at: Int?, body: [Operation] = [])
        /// `scheduleRecursive` of recursion n, whose run k makes the calls of `bodies[k]`.
        case scheduleRecursive(Int, bodies: [[Operation]])
        /// Inside a run of recursion n, that run's `reschedule`.
        case rerun(Int)
        /// The `reschedule` of recursion n's latest run, called from elsewhere.
        case reschedule(Int)
        case dispose(Int)
        case now
        /// A driving call, in a scenario; in a history, the moment it begins choosing work.
        case drive(Target)
        /// In a history: the moment a driving call settles the time and returns.
        case settle(Target)
        /// Observed: action n started; returned.
        case start(Int)
        case end(Int)

        public var description: String {
            switch self {
            case .schedule(let n, let at, let body):
                (at.map { "schedule #\(n) at \($0) ms" } ?? "schedule #\(n)")
                    + (body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }")
            case .scheduleRecursive(let n, let bodies): describe(recursion: n, bodies)
            case .rerun(let n): "reschedule #\(n) inside its run"
            case .reschedule(let n): "reschedule #\(n)"
            case .dispose(let n): "dispose #\(n)"
            case .now: "now"
            case .drive(let target): "\(target)"
            case .settle(let target): "\(target) returns"
            case .start(let n): "#\(n) starts"
            case .end(let n): "#\(n) returns"
            }
        }
    }

    /// What a call returned or an action saw.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case done
        /// A dispose found no handle: the `schedule` that makes it had not returned yet.
        case noHandle
        /// `now`, in nanoseconds after the origin.
        case time(Int64)
        /// A step's answer: whether it ran an action.
        case stepped(Bool)
        /// An action ran with `now` at this time (nanoseconds), as the current scheduler or
        /// not (nil when the subject does not claim to track it).
        case ran(at: Int64, asCurrent: Bool?)

        public var description: String {
            switch self {
            case .done: "done"
            case .noHandle: "no handle yet"
            case .time(let ns): "\(Self.milliseconds(ns))"
            case .stepped(let ran): ran ? "true" : "false"
            case .ran(let ns, let current):
                "ran at \(Self.milliseconds(ns))"
                    + (current.map { $0 ? " as the current scheduler" : ", not as the current scheduler" } ?? "")
            }
        }

        static func milliseconds(_ ns: Int64) -> String {
            ns % 1_000_000 == 0 ? "\(ns / 1_000_000) ms" : "\(Double(ns) / 1e6) ms"
        }
    }

    private struct Entry: Hashable {
        var action: Int, time: Int64, order: Int
    }

    let tracksCurrent: Bool
    /// Whether an advance leaves what is due exactly at its target for the next drive.
    let exclusive: Bool
    var now: Int64 = 0
    private var queue: [Entry] = []
    private var made = 0
    private var driving: Target?
    private var ranInStep = false
    private var running: Int?
    /// Runs asked for inside a recursion's run, queued once it returns.
    private var owed: [Int: Int] = [:]
    /// Runs owed by a run that returned, which its scheduler queues one at a time, between
    /// other calls, and all before anything else starts.
    private var returning: [Int: Int] = [:]
    private var disposed: Set<Int> = []
    private var recursions: Set<Int> = []
    /// Runs of recursions disposed while a step chose its work: it may have taken one, and
    /// then skipped it.
    private var skippable = 0

    /// The model of a subject that tracks the current scheduler or not, and whose advance
    /// runs what is due at its target (`exclusive` false) or leaves it.
    public init(tracksCurrent: Bool, exclusive: Bool = false) {
        self.tracksCurrent = tracksCurrent
        self.exclusive = exclusive
    }

    private var earliest: Entry? { queue.min { ($0.time, $0.order) < ($1.time, $1.order) } }

    /// Where an advance under way sets the time when it returns.
    private var advanceEnd: Int64? {
        switch driving {
        case .by(let ms): advanceStart + Int64(ms) * 1_000_000
        case .to(let ms): Int64(ms) * 1_000_000
        case .step, .all, nil: nil
        }
    }

    /// The latest time the driving call may run work at, if any.
    private var limit: Int64? {
        switch driving {
        case .by, .to: advanceEnd.map { exclusive ? $0 - 1 : $0 }
        case .step: ranInStep ? nil : .max
        case .all: .max
        case nil: nil
        }
    }

    /// `advance(by:)` fixes its target when it begins, from the time then.
    private var advanceStart: Int64 = 0

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: VirtualTimeModel)] {
        switch operation {
        case .start, .settle: queuingOwed(all: true)[0].applyNow(operation)
        default: queuingOwed(all: false).flatMap { $0.applyNow(operation) }
        }
    }

    /// This state with the runs a returned run owes queued: all of them, or each number of
    /// them (its scheduler may not have got to the rest yet).
    private func queuingOwed(all: Bool) -> [VirtualTimeModel] {
        guard let (n, count) = returning.first else { return [self] }
        return (all ? count...count : 0...count).map { queued in
            var next = self
            for _ in 0..<queued { next.queueRun(of: n) }
            next.returning[n] = queued == count ? nil : count - queued
            return next
        }
    }

    private mutating func queueRun(of n: Int) {
        queue.append(Entry(action: n, time: now, order: made))
        made += 1
    }

    private func applyNow(_ operation: Operation) -> [(outcome: Outcome, next: VirtualTimeModel)] {
        var next = self
        switch operation {
        case .schedule(let n, let at, _):
            next.queue.append(Entry(action: n, time: max(at.map { Int64($0) * 1_000_000 } ?? now, now), order: made))
            next.made += 1
        case .scheduleRecursive(let n, _):
            next.recursions.insert(n)
            next.queueRun(of: n)
        case .rerun(let n):
            guard running == n else { return [] }
            if !disposed.contains(n) { next.owed[n, default: 0] += 1 }
        case .reschedule(let n):
            guard !disposed.contains(n) else { return [(.done, self), (.noHandle, self)] }
            next.queueRun(of: n)
            guard running == n else { return [(.done, next), (.noHandle, self)] }
            var counted = self
            counted.owed[n, default: 0] += 1
            return [(.done, counted), (.done, next), (.noHandle, self)]
        case .dispose(let n):
            next.queue.removeAll { $0.action == n }
            next.owed[n] = nil
            next.returning[n] = nil
            next.disposed.insert(n)
            // A step may already have taken one of a recursion's runs, which then runs nothing.
            if driving == .step, !ranInStep, recursions.contains(n), queue.contains(where: { $0.action == n }) {
                next.skippable += 1
            }
            return [(.done, next), (.noHandle, self)]
        case .now:
            return [(.time(now), self)]
        case .drive(let target):
            guard driving == nil else { return [] }
            next.driving = target
            next.ranInStep = false
            next.advanceStart = now
        case .settle(let target):
            guard driving == target, running == nil else { return [] }
            next.driving = nil
            next.skippable = 0
            switch target {
            case .by, .to:
                if let first = earliest, let limit, first.time <= limit { return [] }
                next.now = max(now, advanceEnd ?? now)
            case .step:
                if !ranInStep, skippable > 0 {
                    return [(.stepped(true), next)] + (queue.isEmpty ? [(.stepped(false), next)] : [])
                }
                if !ranInStep, !queue.isEmpty { return [] }
                return [(.stepped(ranInStep), next)]
            case .all:
                guard queue.isEmpty else { return [] }
            }
        case .start(let n):
            guard running == nil, let limit, let first = earliest, first.action == n, first.time <= limit else {
                return []
            }
            next.queue.removeAll { $0 == first }
            next.now = max(now, first.time)
            next.running = n
            next.ranInStep = true
            return [(.ran(at: next.now, asCurrent: tracksCurrent ? true : nil), next)]
        case .end(let n):
            guard running == n else { return [] }
            next.running = nil
            if let count = next.owed.removeValue(forKey: n) { next.returning[n] = count }
        }
        return [(.done, next)]
    }

    public var description: String {
        let pending = queue.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
            .map { "#\($0.action) at \(Outcome.milliseconds($0.time))" }
        return "now \(Outcome.milliseconds(now)); "
            + (pending.isEmpty ? "nothing pending" : "pending " + pending.joined(separator: ", "))
            + (driving.map { "; inside \($0)" } ?? "") + (running.map { "; #\($0) running" } ?? "")
    }
}
