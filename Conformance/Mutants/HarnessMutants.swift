import Dispatch
import Foundation
import Schedulers
import Synchronization

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

/// A correct scheduler, but asking it for a repeating timer also leaves a thread spinning
/// forever (a poller that never stops): the rule passes, and the worker must say the subject
/// was still running work and give the rules after it a fresh process.
final class SpinningMutant: MutantBase, @unchecked Sendable {
    private let started = Atomic<Bool>(false)

    override func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        if !started.exchange(true, ordering: .relaxed) {
            // The call returns only once the poller spins: a thread still starting (blocked in
            // Foundation's or the sanitizer's start-up under load) is not yet work left running,
            // and the rule that asked for it must be the one the worker names.
            let spinning = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Thread.current.name = "runaway-poller"
                spinning.signal()
                var spins: UInt64 = 0
                while true { spins = spins &+ 1 }
            }
            spinning.wait()
        }
        return try super.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }
}

/// A correct virtual-time scheduler that sorts its whole queue again on every insert, as
/// combine-schedulers' test scheduler does: n actions cost n² log n. Every rule passes it;
/// the `growth` stress scenario must call it superlinear.
final class ResortingVirtualMutant: VirtualTimeScheduler {
    private let base: TestScheduler
    /// The pending deadlines, kept sorted the slow way beside the real queue.
    private let deadlines = Lock<[SchedulerTime]>([])

    init(_ name: String) { base = TestScheduler(name: name) }

    var name: String { base.name }
    var capabilities: SchedulerCapabilities { base.capabilities }
    var now: SchedulerTime { base.now }

    private func resort(adding deadline: SchedulerTime) {
        deadlines.withLock {
            $0.append(deadline)
            $0.sort()
        }
    }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        resort(adding: base.now)
        return base.schedule(action)
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        resort(adding: deadline)
        return try base.schedule(at: deadline, action)
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        try base.schedule(at: deadline, repeatingEvery: interval, leeway: leeway, action)
    }

    func step() -> Bool {
        let stepped = base.step()
        if stepped { deadlines.withLock { if !$0.isEmpty { $0.removeFirst() } } }
        return stepped
    }

    func advance(to target: SchedulerTime) {
        base.advance(to: target)
        deadlines.withLock { $0.removeAll { $0 <= target } }
    }
}

/// A serial Dispatch scheduler whose pending actions wait in an `Array`, each run taking
/// `removeFirst()`: the hand-rolled FIFO that shifts the whole backlog on every dequeue. In
/// order and on time, so every rule passes it; a fan-in whose producers outpace its one
/// consumer costs n² and the `growth` scenario must call it superlinear.
final class ArrayFIFOMutant: MutantBase, @unchecked Sendable {
    private struct Entry {
        let action: SchedulerAction
        let disposable: BooleanDisposable
        /// When it was queued, as a scheduler keeping queue-wait statistics would.
        let enqueued: UInt64
    }
    private struct Pending {
        var entries: [Entry] = []
        var draining = false
    }
    private let pending = Lock(Pending())

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let entry = Entry(
            action: action, disposable: BooleanDisposable(), enqueued: DispatchTime.now().uptimeNanoseconds)
        let startsDrain = pending.withLock { state in
            state.entries.append(entry)
            defer { state.draining = true }
            return !state.draining
        }
        if startsDrain { queue.async { self.drain() } }
        return entry.disposable
    }

    private func drain() {
        while let next = pending.withLock({ state -> Entry? in
            if state.entries.isEmpty {
                state.draining = false
                return nil
            }
            return state.entries.removeFirst()
        }) { run(next.action, unless: next.disposable) }
    }
}

/// A Dispatch scheduler that keeps one closure in ten thousand forever, as a cache that is
/// never trimmed would: every rule run is too short to see it, the `soak` must.
final class KeepsOneClosureInTenThousandMutant: MutantBase, @unchecked Sendable {
    private let kept = Lock<[SchedulerAction]>([])
    private let scheduled = Atomic<Int>(0)

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        if scheduled.wrappingAdd(1, ordering: .relaxed).newValue % 10_000 == 0 { kept.withLock { $0.append(action) } }
        return super.schedule(action)
    }
}
