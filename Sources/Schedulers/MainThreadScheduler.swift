import Dispatch
import Foundation

/// The shared scheduler of the main queue: always asynchronous, even on the main thread.
///
/// Actions run on the main thread in FIFO order, as the current scheduler, in batches: as
/// ReactiveCocoa's main-thread scheduler is a private serial queue targeting the main queue,
/// its actions keep their order among themselves, not a place among other main-queue work,
/// and the main queue sees one block per batch instead of one per action. On Linux the
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
    let backend = DispatchBackend(queue: .main, batched: true)

    private init() {}

    /// Runs the main run loop, which drains the main queue, until `condition` holds or
    /// `timeout` passes. The condition is read again after every block the main queue runs
    /// (a batch of this scheduler's actions is one) and at least every 10 ms, so one that
    /// another thread makes true is seen.
    ///
    /// - Returns: whether `condition` held before the timeout.
    /// - Throws: ``SchedulerError/notOnMainThread`` when called from another thread.
    @discardableResult
    public static func drain(until condition: () -> Bool, timeout: Duration) throws(SchedulerError) -> Bool {
        guard ThreadState.local.isMainThread else { throw .notOnMainThread }
        let deadline = try DispatchBackend.now.advanced(by: timeout)
        // One timer for the whole drain wakes the loop so the condition is re-read: on Linux
        // every `RunLoop.run(mode:before:)` given a finite date keeps about 100 bytes for
        // good (Foundation's run loop arms a timeout timer per call), one call per action
        // drained, and THR-6 failed the main scheduler for the process's growth.
        let wake = DispatchSource.makeTimerSource(queue: .main)
        wake.schedule(deadline: .now() + .milliseconds(10), repeating: .milliseconds(10), leeway: .milliseconds(5))
        wake.setEventHandler {}
        wake.resume()
        defer { wake.cancel() }
        while !condition() {
            guard DispatchBackend.now < deadline else { return false }
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
        return true
    }
}
