import NIOCore
import NIOPosix
import Schedulers

/// An event loop of SwiftNIO's shared `MultiThreadedEventLoopGroup` as a scheduler.
///
/// `scheduleTask(deadline:)` gives cancellable work (deadline "now" for plain scheduling:
/// NIO orders equal deadlines by insertion), `scheduleRepeatedTask` gives repeating work
/// with a fixed *delay* between runs. NIO has no current-scheduler notion, and its
/// `NIODeadline` is the same monotonic uptime clock as Dispatch's.
final class EventLoopSubject: Scheduler {
    let name: String
    let capabilities: SchedulerCapabilities = [.asynchronous, .serial, .cancellation, .timers, .repeating]
    private let loop: any EventLoop

    init(name: String) {
        self.name = name
        self.loop = MultiThreadedEventLoopGroup.singleton.next()
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        ScheduledHandle(loop.scheduleTask(deadline: .now(), action))
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        ScheduledHandle(loop.scheduleTask(deadline: .uptimeNanoseconds(max(deadline.nanoseconds, 1)), action))
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        let initial = max(0, try now.duration(to: deadline).checkedNanoseconds())
        let task = loop.scheduleRepeatedTask(
            initialDelay: .nanoseconds(initial), delay: .nanoseconds(spec.intervalNanoseconds)
        ) { _ in action() }
        return ActionDisposable { task.cancel() }
    }
}

/// NIO's `Scheduled` as a disposable.
final class ScheduledHandle: Disposable {
    private let scheduled: Scheduled<Void>
    private let disposed = BooleanDisposable()

    init(_ scheduled: Scheduled<Void>) { self.scheduled = scheduled }

    func dispose() {
        disposed.dispose()
        scheduled.cancel()
    }

    var isDisposed: Bool { disposed.isDisposed }
}
