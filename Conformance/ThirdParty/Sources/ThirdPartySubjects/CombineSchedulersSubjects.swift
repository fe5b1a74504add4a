import CombineSchedulers
import Dispatch
import OpenCombineDispatch
import SchedulerConformance
import Schedulers

/// pointfreeco's combine-schedulers (on OpenCombine, on Linux) as schedulers: its
/// `TestScheduler` in virtual time, and its `ImmediateScheduler`.
enum CombineSchedulersSubjects {
    static let all: [ConformanceSubject] = [
        ThirdPartySubjects.subject(.combineSchedulersTest) { name in CombineTestSchedulerSubject(name: name) },
        ThirdPartySubjects.subject(.combineSchedulersImmediate) { name in
            CombineSubject(name: name, capabilities: [.synchronous], base: DispatchQueue.immediate)
        },
    ]
}

/// combine-schedulers' `TestScheduler` on `DispatchQueue`'s time, as a virtual-time
/// scheduler. It cannot say when its next work is due, which `step()` needs, so the adapter
/// keeps a ledger; a step advances to the next deadline and runs everything due then (the
/// scheduler has no single-action step). One-shot work returns no cancellable (Combine's
/// API), so the adapter claims no cancellation; repeating work does.
///
/// @unchecked Sendable: the scheduler locks its own state; its type is marked so too, but
/// not its `Cancellable`s.
final class CombineTestSchedulerSubject: VirtualTimeScheduler, @unchecked Sendable {
    let name: String
    let capabilities: SchedulerCapabilities = [
        .asynchronous, .serial, .timers, .repeating, .virtualTime, .cancelsWhenReleased,
    ]
    private let base = DispatchQueue.test
    private let pending = DeadlineLedger()

    init(name: String) { self.name = name }

    var now: SchedulerTime {
        (try? SchedulerTime(nanoseconds: base.now.dispatchTime.uptimeNanoseconds)) ?? .distantFuture
    }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let pending = self.pending
        let id = pending.add(at: now)
        base.schedule {
            _ = pending.remove(id)
            action()
        }
        return nil
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let pending = self.pending
        let id = pending.add(at: deadline)
        base.schedule(after: time(deadline)) {
            _ = pending.remove(id)
            action()
        }
        return nil
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        let pending = self.pending
        let id = pending.add(at: deadline)
        let base = self.base
        let cancellable = base.schedule(after: time(deadline), interval: .nanoseconds(Int(spec.intervalNanoseconds))) {
            pending.ran(id)
            action()
            // The scheduler re-queues the next tick an interval after this one's date.
            let next =
                (try? SchedulerTime(nanoseconds: base.now.dispatchTime.uptimeNanoseconds).advanced(by: interval))
                ?? .distantFuture
            pending.due(id, at: next)
        }
        let handle = CancellableHandle(cancellable)
        pending.attach(id) { handle.dispose() }
        return ActionDisposable { pending.remove(id)?() }
    }

    func step() -> Bool {
        guard let due = pending.earliest() else { return false }
        advance(to: max(due.time, now))
        if pending.earliest() == due { pending.ran(due.id) }
        return true
    }

    func advance(to target: SchedulerTime) {
        base.advance(to: time(target))
    }

    private func time(_ time: SchedulerTime) -> DispatchQueue.SchedulerTimeType {
        // Uptime 0 is Dispatch's "now"; the scheduler's clock starts at 1 ns.
        DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: max(time.nanoseconds, 1)))
    }
}
