import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A serial scheduler on a lane of its own (a queue drained by one Dispatch worker at a
/// time), with a `reset()` that drops pending work; correct but for one fault. The faults
/// are on entry points other than plain `schedule` (dispose, the declared `reset`), open
/// narrow windows, and are what LIN-1's generated scenarios must find unaided.
final class LaneScheduler: Scheduler, @unchecked Sendable {
    // @unchecked: every stored property is immutable, atomic or behind `state`'s lock.
    enum Fault: String, Sendable, CaseIterable {
        case none = "lane"
        /// Disposals are recorded in a bitmask by load-then-store, so two at once lose one.
        case disposeLostUpdate = "dispose-lost-under-contention"
        /// A dispose that lands while the worker is setting an action up takes the action
        /// for pending and hands the lane to a new worker: two workers, overlapping actions.
        case disposeWhileStartingFreesLane = "dispose-while-starting-frees-lane"
        /// A dispose finds its action's position in one critical section and marks it in
        /// another, so a pop in between makes it dispose the next action instead.
        case disposeByStalePosition = "dispose-by-stale-position"
        /// A reset while an action runs is left to the worker, which drops everything queued
        /// when it gets to it, work scheduled after the reset returned included.
        case resetDropsLaterWork = "reset-drops-later-work"

        /// The fault in a few words, for the mutant list.
        var summary: String {
            switch self {
            case .none: "none"
            case .disposeLostUpdate: "records disposals by load-then-store: two at once lose one"
            case .disposeWhileStartingFreesLane:
                "a dispose while an action is being set up hands the lane to a second worker"
            case .disposeByStalePosition: "a dispose marks a position found in an earlier critical section"
            case .resetDropsLaterWork: "a reset while busy drops work scheduled after it returned"
            }
        }
    }

    final class Item: Disposable {
        let number: Int
        let action: SchedulerAction
        let disposed = Atomic<Bool>(false)
        let starting = Atomic<Bool>(false)
        weak let lane: LaneScheduler?

        init(_ number: Int, _ action: @escaping SchedulerAction, lane: LaneScheduler) {
            self.number = number
            self.action = action
            self.lane = lane
        }

        func dispose() { lane?.dispose(self) ?? disposed.store(true, ordering: .releasing) }
        var isDisposed: Bool { lane?.isDisposed(self) ?? disposed.load(ordering: .acquiring) }
    }

    private struct State {
        var items: [Item] = []
        var draining = false
        var resetRequested = false
        var made = 0
    }

    let name: String
    let fault: Fault
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .cancellation, .tracksCurrent] }
    private let state = Lock(State())
    private let mask = Atomic<UInt64>(0)

    init(_ fault: Fault) {
        self.fault = fault
        self.name = "mutant-\(fault.rawValue)"
    }

    var now: SchedulerTime { (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let (item, start) = state.withLock { state -> (Item, Bool) in
            state.made += 1
            let item = Item(state.made, action, lane: self)
            state.items.append(item)
            defer { state.draining = true }
            return (item, !state.draining)
        }
        if start { DispatchQueue.global().async { self.drain() } }
        return item
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? { throw .timersUnsupported(scheduler: name) }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        throw .timersUnsupported(scheduler: name)
    }

    /// Drops every action not yet started.
    func reset() {
        state.withLock { state in
            if fault == .resetDropsLaterWork, state.draining {
                state.resetRequested = true
            } else {
                state.items.removeAll()
            }
        }
    }

    private func drain() {
        while true {
            let next = state.withLock { state -> Item? in
                if state.resetRequested {
                    state.items.removeAll()
                    state.resetRequested = false
                }
                guard !state.items.isEmpty else {
                    state.draining = false
                    return nil
                }
                return state.items.removeFirst()
            }
            guard let item = next else { return }
            if fault == .disposeWhileStartingFreesLane {
                item.starting.store(true, ordering: .releasing)
                spin(.microseconds(2))
                item.starting.store(false, ordering: .releasing)
            }
            if !isDisposed(item) { CurrentScheduler.run(as: self, item.action) }
        }
    }

    private func bit(_ item: Item) -> UInt64? { item.number < 64 ? 1 << UInt64(item.number) : nil }

    fileprivate func isDisposed(_ item: Item) -> Bool {
        if fault == .disposeLostUpdate, let bit = bit(item) { return mask.load(ordering: .acquiring) & bit != 0 }
        return item.disposed.load(ordering: .acquiring)
    }

    fileprivate func dispose(_ item: Item) {
        switch fault {
        case .disposeLostUpdate:
            guard let bit = bit(item) else { break }
            let old = mask.load(ordering: .acquiring)
            spin(.microseconds(1))
            mask.store(old | bit, ordering: .releasing)
            return
        case .disposeWhileStartingFreesLane:
            guard item.starting.load(ordering: .acquiring) else { break }
            item.disposed.store(true, ordering: .releasing)
            let handOver = state.withLock { state in
                defer { state.draining = !state.items.isEmpty }
                return !state.items.isEmpty
            }
            if handOver { DispatchQueue.global().async { self.drain() } }
            return
        case .disposeByStalePosition:
            let position = state.withLock { state in state.items.firstIndex { $0 === item } }
            spin(.nanoseconds(500))
            state.withLock { state in
                if let position, position < state.items.count {
                    state.items[position].disposed.store(true, ordering: .releasing)
                }
            }
            return
        case .none, .resetDropsLaterWork:
            break
        }
        item.disposed.store(true, ordering: .releasing)
    }

    /// The subject of this lane, with `reset` declared for the scenarios.
    static func subject(_ fault: Fault, origin: ConformanceSubject.Origin = .mutant) -> ConformanceSubject {
        let name = fault == .none ? fault.rawValue : "mutant-\(fault.rawValue)"
        var subject = ConformanceSubject(name: name, origin: origin) { LaneScheduler(fault) }
        subject.scenarioOperations = [
            ScenarioOperation(
                "reset", perform: { ($0 as? LaneScheduler)?.reset() }, step: { $0.removeAll() })
        ]
        return subject
    }
}
