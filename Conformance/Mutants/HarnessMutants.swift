import Dispatch
import Foundation
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

/// Leaves a runaway behind when asked for a repeating timer: a thread that allocates and
/// touches memory until the process is stopped (a subject's sleep that recurses into
/// itself, say). The supervisor must stop the worker at its memory cap, in every run.
final class GrowingMutant: MutantBase, @unchecked Sendable {
    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        Thread.detachNewThread {
            var hoard: [[UInt8]] = []
            while true {
                hoard.append([UInt8](repeating: 1, count: 16 << 20))
                usleep(5_000)
            }
        }
        return BooleanDisposable()
    }
}
