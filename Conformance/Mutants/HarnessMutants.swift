import Dispatch
import Schedulers

/// Blocks forever when asked for a repeating timer: the watchdog must report a timeout.
final class HangingMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        DispatchSemaphore(value: 0).wait()
        return BooleanDisposable()
    }
}

/// Traps when asked for a delayed action: the supervisor must report an error and go on.
final class CrashingMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        fatalError("crashing mutant: schedule(at:) traps on purpose")
    }
}
