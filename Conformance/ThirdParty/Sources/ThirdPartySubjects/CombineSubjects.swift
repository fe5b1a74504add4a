import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import OpenCombineFoundation
import Schedulers
import Synchronization

/// Any OpenCombine scheduler as a subject. Combine's one-shot `schedule` forms return no
/// `Cancellable`, so nothing scheduled once can be cancelled: such subjects claim no
/// `cancellation` rather than fake it. Repeating returns a `Cancellable`.
///
/// @unchecked Sendable: OpenCombine's schedulers are thread-safe wrappers of queues and
/// run loops, but their types are not marked Sendable.
final class CombineSubject<Base: OpenCombine.Scheduler>: Schedulers.Scheduler, @unchecked Sendable
where Base.SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
    let name: String
    let capabilities: SchedulerCapabilities
    private let base: Base

    init(name: String, capabilities: SchedulerCapabilities, base: Base) {
        self.name = name
        self.capabilities = capabilities
        self.base = base
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        base.schedule(options: nil, action)
        return nil
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard capabilities.contains(.timers) else { throw .timersUnsupported(scheduler: name) }
        base.schedule(after: try baseTime(deadline), tolerance: base.minimumTolerance, options: nil, action)
        return nil
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        guard capabilities.contains(.repeating) else { throw .repeatingUnsupported(scheduler: name) }
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        let cancellable = base.schedule(
            after: try baseTime(deadline), interval: .nanoseconds(Int(spec.intervalNanoseconds)),
            tolerance: .nanoseconds(Int(spec.leewayNanoseconds)), options: nil, action
        )
        return CancellableHandle(cancellable)
    }

    /// The base scheduler's time for `deadline`: the same distance from its `now`. Our
    /// clock is read first, so the base's `now`, read after, can only push the target
    /// later, never earlier (the other order made timers fire early by the gap).
    private func baseTime(_ deadline: SchedulerTime) throws(SchedulerError) -> Base.SchedulerTimeType {
        let distance = try now.duration(to: deadline).checkedNanoseconds()
        return base.now.advanced(by: .nanoseconds(Int(distance)))
    }
}

/// A Combine `Cancellable` as a disposable.
///
/// @unchecked Sendable: OpenCombine's cancellables are thread-safe, just not marked so.
final class CancellableHandle: Disposable, @unchecked Sendable {
    private let cancellable: any Cancellable
    private let cancelled = Atomic<Bool>(false)

    init(_ cancellable: any Cancellable) { self.cancellable = cancellable }

    func dispose() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) { cancellable.cancel() }
    }

    var isDisposed: Bool { cancelled.load(ordering: .acquiring) }
}
