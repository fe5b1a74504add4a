import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A small virtual-time scheduler, correct but for one fault: each on a call other than
/// plain `schedule` (advance, step, dispose, `now`) meeting a call from another thread, in
/// a narrow window, or on a call made from inside one of its actions, for LIN-2's generated
/// scenarios to find unaided.
final class RacyVirtualScheduler: VirtualTimeScheduler {
    enum Fault: String, Sendable, CaseIterable {
        case none = "racy-virtual"
        /// An advance publishes its target as `now` for a moment before running what is due.
        case nowFlickersToTarget = "virtual-now-flickers-to-target"
        /// An advance takes every action due at one instant in one go, so disposing the
        /// second while the first runs does not stop it.
        case batchIgnoresDispose = "virtual-batch-ignores-dispose"
        /// An advance moves the time to its target in a critical section of its own, after
        /// it found nothing more due: work scheduled in between is stamped with the old time,
        /// and so runs ahead of work already pending at the target (its advances are
        /// exclusive, so that work is still pending).
        case targetSetLate = "virtual-target-set-late"
        /// A step reads the earliest entry in one critical section and removes the earliest
        /// in another: an earlier entry scheduled in between is removed unrun.
        case stepRacesSchedule = "virtual-step-races-schedule"
        /// Work its own actions schedule for the present goes ahead of work already due then
        /// (a fast path for follow-up work).
        case nestedScheduleJumpsQueue = "virtual-nested-schedule-jumps-queue"
        /// A disposal made inside one of its actions is kept until the driving call ends, so
        /// as not to touch the queue it is running from: what it disposed still runs in it.
        case disposeFromActionLate = "virtual-dispose-from-action-late"

        /// The fault in a few words, for the mutant list.
        var summary: String {
            switch self {
            case .none: "none"
            case .nowFlickersToTarget: "an advance shows its target as `now` for half a microsecond first"
            case .batchIgnoresDispose:
                "an advance takes all actions of one instant at once; disposing a later one fails"
            case .targetSetLate: "an advance sets its target time in a critical section of its own"
            case .stepRacesSchedule:
                "a step reads the earliest entry and removes the earliest in two critical sections"
            case .nestedScheduleJumpsQueue: "runs work its actions schedule for the present ahead of work due then"
            case .disposeFromActionLate: "a disposal made inside one of its actions waits for the driving call to end"
            }
        }

        /// What the mutant declares: the fault that needs work pending at an advance's
        /// target to show has advances that leave it pending.
        var declaration: Declaration? { self == .targetSetLate ? .advanceTarget(.exclusive) : nil }
    }

    /// A handle whose action is claimed under the scheduler's lock when it is taken to run,
    /// so a dispose comes either before (the action never starts) or after (it runs whole),
    /// and a step that took an entry always has run it: the base is correct but for `Fault`.
    private final class Claim: Disposable {
        private static let claimed: UInt8 = 1
        private static let disposed: UInt8 = 2
        private let state = Atomic<UInt8>(0)

        /// True for the one caller that claims the action before any dispose.
        func claim() -> Bool {
            state.bitwiseOr(Self.claimed, ordering: .acquiringAndReleasing).oldValue == 0
        }

        func dispose() { state.bitwiseOr(Self.disposed, ordering: .acquiringAndReleasing) }

        var isDisposed: Bool { state.load(ordering: .acquiring) & Self.disposed != 0 }
    }

    /// The `disposeFromActionLate` fault's handle.
    private final class DeferringHandle: Disposable {
        let claim: Claim
        let owner: RacyVirtualScheduler
        /// Reported at once, as users expect: only the claim's disposal waits.
        let asked = Atomic(false)

        init(_ claim: Claim, owner: RacyVirtualScheduler) {
            self.claim = claim
            self.owner = owner
        }

        func dispose() {
            asked.store(true, ordering: .releasing)
            guard CurrentScheduler.value === owner else { return claim.dispose() }
            owner.state.withLock { $0.deferred.append(claim) }
        }

        var isDisposed: Bool { asked.load(ordering: .acquiring) || claim.isDisposed }
    }

    private struct Entry {
        let time: SchedulerTime
        let action: SchedulerAction
        let handle: Claim
    }

    private struct State {
        var now = SchedulerTime.zero
        /// Sorted by time, then order of scheduling: VT-9's twenty thousand stay cheap.
        var entries: [Entry] = []
        /// Disposals kept for the end of the driving call (`disposeFromActionLate`).
        var deferred: [Claim] = []
        /// Entries the running action put ahead of those due with them
        /// (`nestedScheduleJumpsQueue`): the next goes behind them, so its own stay in order.
        var jumped = 0

        var earliest: Int? { entries.isEmpty ? nil : 0 }

        mutating func insert(_ action: @escaping SchedulerAction, at time: SchedulerTime, first: Bool = false) -> Claim
        {
            let handle = Claim()
            let stamp = max(time, now)
            // After every entry not later than it: equal times keep their order of scheduling
            // (or, `first`, before every entry at its time but those the running action put there).
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if first ? entries[middle].time < stamp : entries[middle].time <= stamp {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            if first {
                let front = low
                while low < entries.count, entries[low].time == stamp, low - front < jumped { low += 1 }
                jumped += 1
            }
            entries.insert(Entry(time: stamp, action: action, handle: handle), at: low)
            return handle
        }

        /// Removes, claims and returns the earliest live entries due at or before `limit`
        /// (before it, if `exclusive`): one, or all those at its instant.
        mutating func popDue(notAfter limit: SchedulerTime, exclusive: Bool = false, batch: Bool) -> [Entry] {
            while let index = earliest, exclusive ? entries[index].time < limit : entries[index].time <= limit {
                let first = entries.remove(at: index)
                guard first.handle.claim() else { continue }
                jumped = 0
                now = max(now, first.time)
                guard batch else { return [first] }
                var taken = [first]
                while let next = earliest, entries[next].time == first.time {
                    let entry = entries.remove(at: next)
                    if entry.handle.claim() { taken.append(entry) }
                }
                return taken
            }
            return []
        }
    }

    let name: String
    let fault: Fault
    var capabilities: SchedulerCapabilities {
        [.asynchronous, .serial, .cancellation, .timers, .virtualTime, .singleStep, .tracksCurrent]
    }
    private let state = Lock(State())
    /// Drives from two threads take turns, as the reference's do: the faults are elsewhere.
    private let gate = DriveGate()

    init(_ fault: Fault) {
        self.fault = fault
        self.name = "mutant-\(fault.rawValue)"
    }

    var now: SchedulerTime { state.withLock { $0.now } }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let first = fault == .nestedScheduleJumpsQueue && CurrentScheduler.value === self
        return handle(state.withLock { $0.insert(action, at: $0.now, first: first) })
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        handle(state.withLock { $0.insert(action, at: deadline) })
    }

    private func handle(_ claim: Claim) -> any Disposable {
        fault == .disposeFromActionLate ? DeferringHandle(claim, owner: self) : claim
    }

    /// Carries out the disposals kept for the end of a driving call.
    private func disposeDeferred() {
        let deferred = state.withLock { state in
            defer { state.deferred = [] }
            return state.deferred
        }
        for claim in deferred { claim.dispose() }
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        throw .repeatingUnsupported(scheduler: name)
    }

    @discardableResult
    func step() -> Bool { gate.drive { stepOnce() } }

    func advance(to target: SchedulerTime) {
        gate.drive { advanceWhole(to: target) }
    }

    private func stepOnce() -> Bool {
        defer { disposeDeferred() }
        let taken: Entry?
        if fault == .stepRacesSchedule {
            let seen = state.withLock { state in state.earliest.map { state.entries[$0] } }
            spin(.microseconds(1))
            taken = state.withLock { state -> Entry? in
                guard let index = state.earliest else { return nil }
                state.entries.remove(at: index)
                return seen
            }
            if let taken { state.withLock { $0.now = max($0.now, taken.time) } }
            guard let taken else { return false }
            if taken.handle.claim() { CurrentScheduler.run(as: self, taken.action) }
            return true
        }
        taken = state.withLock { $0.popDue(notAfter: .distantFuture, batch: false).first }
        guard let taken else { return false }
        CurrentScheduler.run(as: self, taken.action)
        return true
    }

    private func advanceWhole(to target: SchedulerTime) {
        defer { disposeDeferred() }
        if fault == .nowFlickersToTarget {
            let (before, due) = state.withLock { ($0.now, $0.earliest != nil) }
            if due, target > before {
                state.withLock { $0.now = target }
                spin(.nanoseconds(500))
                state.withLock { $0.now = before }
            }
        }
        while true {
            let due = state.withLock { state -> [Entry] in
                let due = state.popDue(
                    notAfter: target, exclusive: fault.declaration != nil, batch: fault == .batchIgnoresDispose)
                if due.isEmpty, fault != .targetSetLate { state.now = max(state.now, target) }
                return due
            }
            if due.isEmpty { break }
            for entry in due {
                state.withLock { $0.now = max($0.now, entry.time) }
                CurrentScheduler.run(as: self, entry.action)
            }
        }
        if fault == .targetSetLate {
            spin(.microseconds(1))
            state.withLock { $0.now = max($0.now, target) }
        }
    }
}
