import Dispatch
import Foundation

/// The shared scheduler of the main queue: always asynchronous, even on the main thread.
///
/// Actions run on the main thread in FIFO order, as the current scheduler. On Linux the
/// main queue drains only while the main thread runs Dispatch (`dispatchMain()`), the main
/// run loop, or Swift concurrency's main actor. A command-line tool whose main thread is
/// busy doing other things can call ``drain(until:timeout:)`` from the main thread.
public final class MainThreadScheduler: DispatchBackedScheduler {
    /// The one main-thread scheduler.
    public static let shared = MainThreadScheduler()

    public let name = "MainThreadScheduler"
    public var capabilities: SchedulerCapabilities {
        [.asynchronous, .serial, .cancellation, .timers, .repeating, .tracksCurrent, .mainThread]
    }
    let backend = DispatchBackend(queue: .main)

    private init() {}

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
