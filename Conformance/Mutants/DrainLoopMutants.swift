import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// A serial scheduler written the way many are by hand: a locked FIFO of entries and one
/// drain at a time, started on a concurrent target queue when the first entry arrives.
/// Correct without a fault; each fault is a realistic slip in the hand-off between the
/// producers and the drain, which shows only when work arrives while the drain is busy.
///
/// Timers and repeating ticks are queued as plain entries when they fall due, so every
/// action goes through the one drain.
final class DrainLoopMutant: Scheduler, @unchecked Sendable {
    enum Fault: String, Sendable {
        /// On finding the queue empty the drain marks itself idle, then lingers 20 µs for more
        /// work (to save a wake-up) and runs what comes without claiming the drain again: two
        /// entries arriving close together just then run on two drains at once.
        case lingersAfterRelease = "drain-lingers-after-release"
        /// "Is a drain running?" is read before the entry is queued and set after, outside the
        /// lock: two producers that find the scheduler idle at the same moment both start a
        /// drain.
        case racyDrainFlag = "racy-drain-flag"
        /// The drain checks the whole batch for disposal when it takes it, then runs the
        /// entries without checking again: a disposal that lands while earlier entries of
        /// the batch run is ignored.
        case staleBatchCheck = "stale-batch-check"
        /// When the entry it takes leaves the queue empty, the drain checks it for disposal,
        /// then announces that it is drained (30 µs of bookkeeping) before running it: a
        /// check-then-run window only where no work waits behind.
        case announcesDrainedBeforeLast = "announces-drained-before-last"
    }

    private struct Entry {
        let action: SchedulerAction
        let disposable: BooleanDisposable
    }

    private struct State {
        var entries: [Entry] = []
        var head = 0
        var draining = false

        mutating func takeFirst() -> Entry? {
            guard head < entries.count else { return nil }
            let entry = entries[head]
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            }
            return entry
        }

        mutating func takeAll() -> ArraySlice<Entry> {
            defer {
                entries.removeAll(keepingCapacity: true)
                head = 0
            }
            return entries[head...]
        }
    }

    let name: String
    let capabilities: SchedulerCapabilities = [
        .asynchronous, .serial, .cancellation, .timers, .repeating, .tracksCurrent,
    ]
    private let fault: Fault?
    private let state = Lock(State())
    /// Read and written outside the lock by the racy fault (an atomic, so the race is the
    /// design's, not undefined behaviour).
    private let racyDraining = Atomic<Bool>(false)
    private let target = DispatchQueue.global()
    /// Where timers fire: one serial queue, so that timers due together are queued in deadline
    /// order. Fired on the global queue, each on a thread of its own, a thread kept off its core
    /// queued a 20 ms timer after a 30 ms one, and the control failed TIM-4 under load.
    private let timers = DispatchQueue(label: "drain-loop.timers")

    init(_ fault: Fault?) {
        self.fault = fault
        self.name = fault?.rawValue ?? "drain-loop"
    }

    var now: SchedulerTime { (try? SchedulerTime(nanoseconds: DispatchTime.now().uptimeNanoseconds)) ?? .distantFuture }

    @discardableResult
    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let disposable = BooleanDisposable()
        enqueue(Entry(action: action, disposable: disposable))
        return disposable
    }

    @discardableResult
    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        timers.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            self.enqueue(Entry(action: action, disposable: disposable))
        }
        return disposable
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        nonisolated(unsafe) let timer = timerSource(on: timers, deadline: deadline, spec: spec)
        let ticks = BooleanDisposable()
        let handle = ActionDisposable {
            ticks.dispose()
            timer.cancel()
        }
        // The handler keeps the handle (and so the timer) alive until disposal. It queues a
        // run for every time the timer fired since it last ran: Dispatch folds the fires of
        // a handler it ran late into one call, and without the count a loaded machine would
        // make this timer merge the ticks it declares it bursts (TIM-16).
        timer.setEventHandler { [self] in
            blackHole(handle)
            for _ in 0..<max(timer.data, 1) { enqueue(Entry(action: action, disposable: ticks)) }
        }
        timer.resume()
        return handle
    }

    @discardableResult
    func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (any Disposable)? {
        RecursiveScheduling.start(on: self, block)
    }

    private func enqueue(_ entry: Entry) {
        if fault == .racyDrainFlag {
            let wasIdle = !racyDraining.load(ordering: .acquiring)
            state.withLock { $0.entries.append(entry) }
            if wasIdle {
                racyDraining.store(true, ordering: .releasing)
            } else if racyDraining.exchange(true, ordering: .acquiringAndReleasing) {
                return  // a drain is running and will find the entry
            }
            target.async { self.drainRacy() }
            return
        }
        let start = state.withLock { state in
            state.entries.append(entry)
            defer { state.draining = true }
            return !state.draining
        }
        if start { target.async { self.drain() } }
    }

    private func run(_ entry: Entry) {
        guard !entry.disposable.isDisposed else { return }
        CurrentScheduler.run(as: self, entry.action)
    }

    private func drain() {
        if fault == .staleBatchCheck {
            while true {
                let batch: ArraySlice<Entry> = state.withLock { state in
                    let batch = state.takeAll()
                    if batch.isEmpty { state.draining = false }
                    return batch
                }
                if batch.isEmpty { return }
                let live = batch.filter { !$0.disposable.isDisposed }
                for entry in live { CurrentScheduler.run(as: self, entry.action) }
            }
        }
        while true {
            let next: (entry: Entry, last: Bool)? = state.withLock { state in
                guard let next = state.takeFirst() else {
                    state.draining = false
                    return nil
                }
                return (next, state.head == state.entries.count)
            }
            if let next {
                if next.last, fault == .announcesDrainedBeforeLast {
                    guard !next.entry.disposable.isDisposed else { continue }
                    spin(.microseconds(30))
                    CurrentScheduler.run(as: self, next.entry.action)
                } else {
                    run(next.entry)
                }
                continue
            }
            guard fault == .lingersAfterRelease, let lingered = linger() else { return }
            run(lingered)
        }
    }

    /// Polls for an entry for 20 µs, without owning the drain.
    private func linger() -> Entry? {
        let end = ContinuousClock.now + .microseconds(20)
        while ContinuousClock.now < end {
            if let entry = state.withLock({ $0.takeFirst() }) { return entry }
        }
        return nil
    }

    private func drainRacy() {
        while true {
            guard let next = state.withLock({ $0.takeFirst() }) else {
                racyDraining.store(false, ordering: .releasing)
                // Work queued between the empty check and the flag's reset would be stranded.
                guard state.withLock({ $0.head < $0.entries.count }),
                    !racyDraining.exchange(true, ordering: .acquiringAndReleasing)
                else { return }
                continue
            }
            run(next)
        }
    }
}

/// Serial, except that when two threads' `schedule` calls overlap, the later one's action is
/// started on a helper queue and the scheduler goes on as soon as it has *started*: the next
/// action may run while it is still running. Order of starts is kept.
final class ReleasesNextWhenContendedMutant: MutantBase, @unchecked Sendable {
    private let inFlight = Atomic<Int>(0)
    private let helper = DispatchQueue.global()

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let contended = inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1
        defer { inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        guard contended else { return super.schedule(action) }
        let disposable = BooleanDisposable()
        queue.async { [helper] in
            guard !disposable.isDisposed else { return }
            let started = DispatchSemaphore(value: 0)
            helper.async {
                CurrentScheduler.run(as: self) {
                    started.signal()
                    action()
                }
            }
            started.wait()
        }
        return disposable
    }
}

/// Checks disposal before running, as it should, but one action in 300 does a moment of
/// bookkeeping between the check and the start: a rare check-then-run window.
final class DisposeRaceRareMutant: MutantBase, @unchecked Sendable {
    private let count = Atomic<Int>(0)

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        guard !disposable.isDisposed else { return }
        if count.wrappingAdd(1, ordering: .relaxed).newValue % 300 == 0 { spin(.microseconds(30)) }
        CurrentScheduler.run(as: self, action)
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let drainLoop: [Mutant] = [
        mutant(
            "releases-next-when-contended",
            "when two threads' calls overlap, the later action lets the next start beside it", .ord2
        ) { ReleasesNextWhenContendedMutant($0) },
        faulty(
            DrainLoopMutant.Fault.staleBatchCheck,
            "checks a whole batch for disposal when it takes it, not each entry before it runs", .can3
        ) { DrainLoopMutant($0) },
        faulty(
            DrainLoopMutant.Fault.announcesDrainedBeforeLast,
            "checks the last queued entry for disposal, then announces it is drained (30 µs) before running it", .can3
        ) { DrainLoopMutant($0) },
    ]
}
