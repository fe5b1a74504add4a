import Dispatch
import Foundation
import Schedulers

/// Foundation's `RunLoop` with `Timer`s as a scheduler, on a thread that runs the loop.
///
/// Every action is a timer (plain ones fire "now"); cancellation is a flag the timer's
/// block checks, since `Timer.invalidate()` must be called on the loop's own thread.
/// `Timer` fire dates are wall-clock `Date`s, converted from the monotonic deadline when
/// scheduling.
final class RunLoopSubject: Scheduler {
    let name: String
    let capabilities: SchedulerCapabilities = [.asynchronous, .serial, .cancellation, .timers, .repeating]
    private let thread = RunLoopThread.shared

    init(name: String) { self.name = name }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        add(fireIn: 0, interval: 0, repeats: false, tolerance: 0, action)
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        add(fireIn: now.duration(to: deadline).timeInterval, interval: 0, repeats: false, tolerance: 0, action)
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        _ = try RepeatSpec(interval: interval, leeway: leeway)
        return add(
            fireIn: now.duration(to: deadline).timeInterval, interval: interval.timeInterval, repeats: true,
            tolerance: leeway.timeInterval, action)
    }

    private func add(
        fireIn delay: Double, interval: Double, repeats: Bool, tolerance: Double, _ action: @escaping SchedulerAction
    ) -> any Disposable {
        let handle = BooleanDisposable()
        let timer = Timer(fire: Date(timeIntervalSinceNow: max(delay, 0)), interval: interval, repeats: repeats) {
            timer in
            guard !handle.isDisposed else { return timer.invalidate() }
            action()
        }
        timer.tolerance = tolerance
        thread.add(timer)
        return handle
    }
}

/// A thread that runs a `RunLoop` for as long as the process lives.
///
/// @unchecked Sendable: `runLoop` is written once before `init` returns; adding a timer to
/// a run loop from another thread is thread-safe (CFRunLoopAddTimer).
final class RunLoopThread: @unchecked Sendable {
    static let shared = RunLoopThread()

    /// The loop the thread runs; set before `init` returns.
    private(set) var runLoop: RunLoop!

    private init() {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            runLoop = RunLoop.current
            // A far-off timer keeps the loop from returning when it has nothing else.
            RunLoop.current.add(Timer(timeInterval: 1e9, repeats: true) { _ in }, forMode: .default)
            ready.signal()
            while true { _ = RunLoop.current.run(mode: .default, before: .distantFuture) }
        }
        thread.name = "RunLoopSubject"
        thread.start()
        ready.wait()
    }

    func add(_ timer: Timer) {
        runLoop.add(timer, forMode: .default)
    }
}
