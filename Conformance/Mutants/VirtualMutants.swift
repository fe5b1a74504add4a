import Schedulers
import Synchronization

/// A small virtual-time scheduler with one of two faults: ties run last-in first, or
/// `now` inside an action reports the target of the advance instead of the action's time.
final class FaultyVirtualMutant: VirtualTimeScheduler {
    enum Fault: Sendable { case unstableTies, nowIsTarget }

    private struct Entry {
        let time: SchedulerTime
        let action: SchedulerAction
        let disposable: BooleanDisposable
    }

    private struct State {
        var now = SchedulerTime.zero
        var entries: [Entry] = []
    }

    let name: String
    let fault: Fault
    var capabilities: SchedulerCapabilities { [.asynchronous, .serial, .cancellation, .timers, .virtualTime, .tracksCurrent] }
    private let state = Mutex(State())

    init(_ fault: Fault) {
        self.fault = fault
        self.name = fault == .unstableTies ? "virtual-unstable-ties" : "virtual-now-is-target"
    }

    var now: SchedulerTime { state.withLock { $0.now } }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        insert(action, at: now)
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        insert(action, at: deadline)
    }

    private func insert(_ action: @escaping SchedulerAction, at time: SchedulerTime) -> any Disposable {
        let disposable = BooleanDisposable()
        state.withLock { state in
            let time = max(time, state.now)
            let entry = Entry(time: time, action: action, disposable: disposable)
            // The fault: a stable queue inserts after equal times; this one inserts before them.
            let index = state.entries.firstIndex { fault == .unstableTies ? $0.time >= time : $0.time > time } ?? state.entries.endIndex
            state.entries.insert(entry, at: index)
        }
        return disposable
    }

    @discardableResult
    func step() -> Bool { run(notAfter: .distantFuture, reportedNow: nil) }

    func advance(to target: SchedulerTime) {
        while run(notAfter: target, reportedNow: fault == .nowIsTarget ? target : nil) {}
        state.withLock { $0.now = max($0.now, target) }
    }

    private func run(notAfter limit: SchedulerTime, reportedNow: SchedulerTime?) -> Bool {
        let entry = state.withLock { state -> Entry? in
            while let first = state.entries.first, first.time <= limit {
                state.entries.removeFirst()
                guard !first.disposable.isDisposed else { continue }
                state.now = reportedNow ?? first.time
                return first
            }
            return nil
        }
        guard let entry else { return false }
        CurrentScheduler.run(as: self, entry.action)
        return true
    }
}
