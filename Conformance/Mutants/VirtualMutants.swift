import HeapModule
import SchedulerVocabulary
import Schedulers

/// A small virtual-time scheduler, correct but for one fault per instance.
final class FaultyVirtualMutant: VirtualTimeScheduler {
    private struct Entry: Comparable {
        let time: SchedulerTime
        let sequence: UInt64
        /// Breaks ties: the sequence, or (for the faults that need it) its negation.
        let tie: Int64
        let action: SchedulerAction
        let disposable: BooleanDisposable
        let interval: Duration?
        /// Popped though disposed (only `stepCountsDisposed` does that): the step is spent on it.
        var spent = false

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.time, lhs.tie) < (rhs.time, rhs.tie) }
        static func == (lhs: Entry, rhs: Entry) -> Bool { (lhs.time, lhs.tie) == (rhs.time, rhs.tie) }
    }

    private struct State {
        var now = SchedulerTime.zero
        var sequence: UInt64 = 0
        var entries = Heap<Entry>()
        /// The target of the advance under way.
        var target: SchedulerTime?
    }

    let fault: Fault
    var name: String { fault.rawValue }
    var capabilities: SchedulerCapabilities {
        var claims: SchedulerCapabilities = [
            .asynchronous, .serial, .cancellation, .timers, .repeating, .virtualTime, .tracksCurrent,
        ]
        if fault != .instantStepOverruns && fault != .singleStepUnclaimed { claims.insert(.singleStep) }
        return claims
    }

    private let state = Lock(State())
    private let gate = DriveGate()
    /// The `.unguarded` fault's count of calls, kept without any lock. Only the count races:
    /// a queue left unguarded was corrupted by the race, and a rule spun in its heap until
    /// the sanitizer's rule timeout.
    private nonisolated(unsafe) var unguardedCalls = 0

    /// Runs `body` on the state under its lock; the `.unguarded` fault first counts the call
    /// without one.
    private func guarded<R>(_ body: (inout State) -> R) -> R {
        if fault == .unguarded { unguardedCalls += 1 }
        return state.withLock { body(&$0) }
    }

    init(_ fault: Fault) { self.fault = fault }

    var now: SchedulerTime { guarded { $0.now } }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if fault == .runsEagerly, guarded({ $0.entries.isEmpty }) {
            CurrentScheduler.run(as: self, action)
            return nil
        }
        return insert(action, at: now, interval: nil)
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        insert(action, at: deadline, interval: nil)
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        _ = try RepeatSpec(interval: interval, leeway: leeway)
        return insert(action, at: deadline, interval: interval)
    }

    private func insert(
        _ action: @escaping SchedulerAction, at time: SchedulerTime, interval: Duration?,
        disposable: BooleanDisposable = BooleanDisposable()
    ) -> BooleanDisposable {
        guarded { state in
            var time = fault == .pastKeepsItsTime ? time : max(time, state.now)
            if fault == .clampsToTarget, let target = state.target { time = max(time, target) }
            state.sequence += 1
            let lifoTies = fault == .unstableTies || (fault == .unstableWhenLarge && state.entries.count >= 64)
            let tie = lifoTies ? -Int64(state.sequence) : Int64(state.sequence)
            state.entries.insert(
                Entry(
                    time: time, sequence: state.sequence, tie: tie, action: action, disposable: disposable,
                    interval: interval))
        }
        return disposable
    }

    /// Removes the earliest live entry due at or before `limit` (before it, when
    /// `exclusive`), skipping entries added after `sequenceLimit`, and moves the time to it in
    /// the same critical section, so work scheduled meanwhile for the present is stamped with
    /// that time. With nothing due, it sets the time to `finishing` (an advance's target), in
    /// that section too: nothing can be scheduled between the last look and the time moving.
    private func pop(
        notAfter limit: SchedulerTime, exclusive: Bool = false, sequenceLimit: UInt64 = .max,
        finishing end: SchedulerTime? = nil
    ) -> Entry? {
        guarded { state in
            var later: [Entry] = []
            defer { for entry in later { state.entries.insert(entry) } }
            while let entry = state.entries.min, exclusive ? entry.time < limit : entry.time <= limit {
                state.entries.removeMin()
                if entry.sequence > sequenceLimit {
                    later.append(entry)
                    continue
                }
                var entry = entry
                if entry.disposable.isDisposed {
                    guard fault == .stepCountsDisposed && end == nil else { continue }
                    entry.spent = true
                }
                // Never back: a past deadline kept with its own time (a fault) runs at the present.
                state.now = fault == .nowIsTarget ? (state.target ?? entry.time) : max(state.now, entry.time)
                return entry
            }
            if let end {
                state.now = max(state.now, end)
                state.target = nil
            }
            return nil
        }
    }

    private func run(_ entry: Entry) {
        // Taking the entry under the lock was its claim, as the reference's is: a disposal
        // after it is too late, and checking again here would let a step report a run that
        // never happened.
        if entry.spent { return }
        guard let interval = entry.interval else { return CurrentScheduler.run(as: self, entry.action) }
        let base = fault == .repeatingFromTarget ? (guarded { $0.target } ?? entry.time) : entry.time
        let next = (try? base.advanced(by: interval)) ?? .distantFuture
        guard fault == .tickLosesOwnDisposal else {
            _ = insert(entry.action, at: next, interval: interval, disposable: entry.disposable)
            return CurrentScheduler.run(as: self, entry.action)
        }
        // Re-armed from the entry it took, once the tick ran: a disposal made meanwhile marked
        // an entry no longer queued, and the series goes on under a handle no one holds.
        CurrentScheduler.run(as: self, entry.action)
        let handle = entry.disposable.isDisposed ? BooleanDisposable() : entry.disposable
        _ = insert(entry.action, at: next, interval: interval, disposable: handle)
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        if fault == .recursionRecordsHandleLate { return LateRecordingRecursion(on: self, block).start() }
        if fault == .inRunRerunsQueuedAtTheCall { return recursionQueuedAtTheCall(block) }
        guard fault == .recursionLeavesPendingRun else { return RecursiveScheduling.start(on: self, block) }
        let recursion = BooleanDisposable()
        @Sendable func run() {
            guard !recursion.isDisposed else { return }
            let counted = Lock<(inBlock: Bool, count: Int)>((true, 0))
            block {
                let inBlock = counted.withLock { state in
                    if state.inBlock { state.count += 1 }
                    return state.inBlock
                }
                if !inBlock { _ = self.schedule { run() } }
            }
            let count = counted.withLock { state in
                state.inBlock = false
                return state.count
            }
            for _ in 0..<count { _ = schedule { run() } }
        }
        _ = schedule { run() }
        return recursion
    }

    /// Every run queued at its `reschedule`, in the recursion's composite, so disposing the
    /// recursion withdraws it.
    private func recursionQueuedAtTheCall(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void)
        -> any Disposable
    {
        let recursion = CompositeDisposable()
        @Sendable func queueRun() {
            guard !recursion.isDisposed, let handle = schedule({ run() }) else { return }
            // Refused once the recursion was disposed, which disposes the handle.
            _ = recursion.add(handle)
        }
        @Sendable func run() {
            guard !recursion.isDisposed else { return }
            block { queueRun() }
        }
        queueRun()
        return recursion
    }

    @discardableResult
    func step() -> Bool {
        switch fault {
        case .drivesOverlap, .stepOutsideGate: stepOnce()
        default: gate.drive { stepOnce() }
        }
    }

    func advance(to target: SchedulerTime) {
        switch fault {
        case .drivesOverlap, .gatePerAction: advanceWhole(to: target)
        default:
            gate.drive { advanceWhole(to: target) }
        }
    }

    private func stepOnce() -> Bool {
        guard let first = pop(notAfter: .distantFuture) else {
            if fault == .emptyStepMovesTime {
                guarded { $0.now = (try? $0.now.advanced(by: .milliseconds(1))) ?? $0.now }
            }
            return false
        }
        run(first)
        if fault == .stepRunsTies, let tie = pop(notAfter: first.time) { run(tie) }
        if fault == .instantStepOverruns {
            // Steps by instants: everything due at the first instant, and (the fault) the next one.
            while let more = pop(notAfter: first.time) { run(more) }
            if let next = pop(notAfter: .distantFuture) {
                run(next)
                while let more = pop(notAfter: next.time) { run(more) }
            }
        }
        return true
    }

    private func advanceWhole(to target: SchedulerTime) {
        guard fault == .advanceToNowSkips ? target > now : target >= now else {
            if fault == .movesBackwards { guarded { $0.now = target } }
            return
        }
        guarded { $0.target = target }
        switch fault {
        case .advanceSnapshot:
            let last = guarded { $0.sequence }
            while let entry = pop(notAfter: target, sequenceLimit: last) { run(entry) }
        case .insertionsAfterBatch:
            while true {
                let batch = guarded { state -> [Entry] in
                    var due: [Entry] = []
                    while let first = state.entries.min, first.time <= target { due.append(state.entries.removeMin()) }
                    return due.filter { !$0.disposable.isDisposed }
                }
                if batch.isEmpty { break }
                // Claimed as a batch: one disposed by an earlier one's action is still skipped.
                for entry in batch where !entry.disposable.isDisposed { run(entry) }
            }
        case .gatePerAction:
            // The gate for each action; the time set to the target in a drive of its own.
            while gate.drive({
                guard let entry = pop(notAfter: target, finishing: target) else { return false }
                run(entry)
                return true
            }) {}
            return
        default:
            while let entry = pop(notAfter: target, exclusive: fault == .advanceExclusive, finishing: target) {
                run(entry)
            }
            return
        }
        guarded { state in
            state.now = max(state.now, target)
            state.target = nil
        }
    }
}
