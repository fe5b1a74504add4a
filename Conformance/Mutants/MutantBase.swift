import Dispatch
import SchedulerProbes
import Schedulers
import Synchronization

/// A correct, ReactiveCocoa-style queue scheduler built only on the public API; each
/// mutant overrides one piece of it with a known fault.
///
/// @unchecked Sendable: subclasses are allowed; all stored state is immutable or atomic.
class MutantBase: Scheduler, @unchecked Sendable {
    let name: String
    let capabilities: SchedulerCapabilities
    let queue: DispatchQueue

    init(
        _ name: String,
        claims: SchedulerCapabilities = [.asynchronous, .serial, .cancellation, .timers, .repeating, .tracksCurrent],
        queue: DispatchQueue? = nil
    ) {
        self.name = name
        self.capabilities = claims
        self.queue = queue ?? DispatchQueue(label: name)
    }

    var now: SchedulerTime { (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture }

    /// Runs `action` as this scheduler unless `disposable` was disposed first.
    func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        CurrentScheduler.run(as: self, action)
    }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        queue.async { self.run(action, unless: disposable) }
        return disposable
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        delayed(on: queue, at: deadline, action)
    }

    /// `action` run as this scheduler at `deadline`, from `queue`, unless disposed first.
    func delayed(on queue: DispatchQueue, at deadline: SchedulerTime, _ action: @escaping SchedulerAction)
        -> any Disposable
    {
        let disposable = BooleanDisposable()
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            self.fire(action, unless: disposable)
        }
        return disposable
    }

    /// Runs a timed action once its deadline came, as any other action: the one piece the
    /// timed-work mutants change.
    func fire(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        run(action, unless: disposable)
    }

    func schedule(
        at deadline: SchedulerTime,
        repeatingEvery interval: Duration,
        leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        return makeTimer(deadline: deadline, spec: spec) { CurrentScheduler.run(as: self, action) }
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        RecursiveScheduling.start(on: self, block)
    }

    /// A repeating GCD timer running `tick`, kept alive by its handler until disposed.
    func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction) -> any Disposable {
        repeatingTimer(on: queue, deadline: deadline, spec: spec, tick)
    }

    /// The same, firing on `queue`.
    func repeatingTimer(
        on queue: DispatchQueue, deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction
    ) -> any Disposable {
        nonisolated(unsafe) let timer = timerSource(on: queue, deadline: deadline, spec: spec)
        let handle = ActionDisposable { timer.cancel() }
        // The handler holds the handle, which holds the timer: a dropped handle does not
        // stop the timer (Dispatch frees an unreferenced source); cancelling breaks the cycle.
        timer.setEventHandler {
            blackHole(handle)
            tick()
        }
        timer.resume()
        return handle
    }

    /// A repeat made by hand of one-shot timers, each armed `period` after the tick before it
    /// returned: the fixed-delay shape whose periods all run long.
    func rearmingTimer(deadline: SchedulerTime, period: UInt64, _ tick: @escaping SchedulerAction) -> any Disposable {
        let handle = BooleanDisposable()
        @Sendable func arm(_ at: SchedulerTime) {
            queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(at.nanoseconds, 1))) {
                guard !handle.isDisposed else { return }
                tick()
                arm(self.now.advancedSaturating(by: period))
            }
        }
        arm(deadline)
        return handle
    }
}

@inline(never)
func blackHole<T>(_ value: T) {}

/// A Dispatch timer source on `queue`, armed for `deadline` and `spec` but not resumed:
/// the part every hand-written repeating mutant shares.
func timerSource(on queue: DispatchQueue, deadline: SchedulerTime, spec: RepeatSpec) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(
        deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1)),
        repeating: .nanoseconds(Int(spec.intervalNanoseconds)),
        leeway: .nanoseconds(Int(spec.leewayNanoseconds))
    )
    return timer
}
