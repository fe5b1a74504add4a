import Dispatch
import Foundation

/// The shared scheduler of the main queue: always asynchronous, even on the main thread.
///
/// Actions run on the main thread in FIFO order, as the current scheduler. On Linux the
/// main queue drains only while the main thread runs Dispatch (`dispatchMain()`), the main
/// run loop, or Swift concurrency's main actor. A command-line tool whose main thread is
/// busy doing other things can call ``drain(until:timeout:)`` from the main thread.
public final class MainThreadScheduler: Scheduler {
    /// The one main-thread scheduler.
    public static let shared = MainThreadScheduler()

    public let name = "MainThreadScheduler"
    public var capabilities: SchedulerCapabilities {
        [.asynchronous, .serial, .cancellation, .timers, .repeating, .tracksCurrent, .mainThread]
    }
    private let backend = DispatchBackend(queue: .main)

    private init() {}

    public var now: SchedulerTime { DispatchBackend.now }

    @discardableResult
    public func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        backend.schedule(action, as: self)
    }

    @discardableResult
    public func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        backend.schedule(at: deadline, action, as: self)
    }

    public func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try backend.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action, as: self)
    }

    /// Runs the main run loop, which drains the main queue, until `condition` holds or
    /// `timeout` passes.
    ///
    /// - Returns: whether `condition` held before the timeout.
    /// - Throws: ``SchedulerError/notOnMainThread`` when called from another thread.
    @discardableResult
    public static func drain(until condition: () -> Bool, timeout: Duration) throws(SchedulerError) -> Bool {
        guard ThreadState.local.isMainThread else { throw .notOnMainThread }
        let deadline = try DispatchBackend.now.advanced(by: timeout)
        while !condition() {
            guard DispatchBackend.now < deadline else { return false }
            // Short slices so the condition is re-read even when no source fires.
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
        }
        return true
    }
}
