import Schedulers

/// LIN-1's specification of a real-time scheduler, from the semantics (§2, §3) and the
/// ORD, CAN and CUR rules: plain actions start in the order they were scheduled (serial
/// subjects) or in any order (concurrent ones), those scheduled from inside an action
/// included; a serial subject runs one at a time; an action whose handle was disposed before
/// it started (from any thread, or from inside another action) never starts; disposing one
/// that started changes nothing; each runs as the current scheduler when the subject tracks it.
public struct SchedulerModel: SequentialModel, CustomStringConvertible {
    /// A call, or what an action saw. Actions are numbered in the order the scenario makes them.
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        /// `schedule` of action n, which makes the calls of `body` (schedules and disposals,
        /// themselves without bodies) when it runs; in a history they are entries of their own.
        case schedule(Int, body: [Operation] = [])
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

        /// Whether it is a `schedule`.
        var isSchedule: Bool {
            if case .schedule = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .schedule(let n, let body):
                "schedule #\(n)" + (body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }")
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

        public var description: String {
            switch self {
            case .done: "done"
            case .noHandle: "no handle yet"
            case .ran(let current):
                current.map { $0 ? "ran as the current scheduler" : "ran, not as the current scheduler" } ?? "ran"
            case .pending(let actions):
                actions.isEmpty ? "nothing pending" : "#\(actions.map(String.init).joined(separator: ", #")) pending"
            }
        }
    }

    /// An operation an adopter's scheduler has beyond the protocol (see `ScenarioOperation`).
    public typealias ExtraOperation = ScenarioOperation

    let serial: Bool
    let tracksCurrent: Bool
    let extras: [ExtraOperation]
    /// Scheduled, not yet started nor disposed, oldest first.
    var pending: [Int] = []
    /// Started and not yet returned.
    var running: Set<Int> = []

    /// The model of a subject that is `serial` or not, and tracks the current scheduler or not.
    public init(serial: Bool, tracksCurrent: Bool, extras: [ExtraOperation] = []) {
        self.serial = serial
        self.tracksCurrent = tracksCurrent
        self.extras = extras
    }

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: SchedulerModel)] {
        var next = self
        switch operation {
        case .schedule(let n, _):
            next.pending.append(n)
        case .dispose(let n):
            next.pending.removeAll { $0 == n }
            return [(.done, next), (.noHandle, self)]
        case .extra(let name):
            guard let extra = extras.first(where: { $0.name == name }) else { return [] }
            extra.step(&next.pending)
        case .start(let n):
            // A serial subject starts the oldest when nothing runs; any other, any pending one.
            guard serial ? (running.isEmpty && pending.first == n) : pending.contains(n) else { return [] }
            next.pending.removeAll { $0 == n }
            next.running.insert(n)
            return [(.ran(asCurrent: tracksCurrent ? true : nil), next)]
        case .end(let n):
            guard running.contains(n) else { return [] }
            next.running.remove(n)
        case .quiescent:
            return [(.pending(pending + running.sorted()), self)]
        }
        return [(.done, next)]
    }

    public var description: String {
        let waiting =
            pending.isEmpty ? "nothing pending" : "pending #" + pending.map(String.init).joined(separator: ", #")
        let busy =
            running.isEmpty
            ? "nothing running" : "running #" + running.sorted().map(String.init).joined(separator: ", #")
        return "\(waiting); \(busy)"
    }
}
