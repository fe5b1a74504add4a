import Dispatch
import HeapModule
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Schedulers

/// SwiftNIO's test event loops, `EmbeddedEventLoop` and `NIOAsyncTestingEventLoop`, as
/// virtual-time schedulers.
///
/// Both advance time (`advanceTime(to:)`, inclusive, never backwards) but cannot say when
/// their next task is due, which `step()` needs; the adapter keeps that in a ledger. A
/// step advances to the next deadline, running every task due then: NIO has no
/// single-task step. Embedded is not thread-safe and claims `threadConfined`; the async
/// loop is, but its `advanceTime` is `async`, so the adapter blocks on it.
///
/// @unchecked Sendable: the async loop is thread-safe; the embedded one is confined to
/// its creating thread, which is what `threadConfined` tells the suite.
final class NIOVirtualTimeSubject: VirtualTimeScheduler, @unchecked Sendable {
    enum Loop {
        case embedded(EmbeddedEventLoop)
        case asyncTesting(NIOAsyncTestingEventLoop)
    }

    let name: String
    let capabilities: SchedulerCapabilities
    private let loop: Loop
    private let pending = DeadlineLedger()

    init(name: String, loop: Loop) {
        self.name = name
        self.loop = loop
        var capabilities: SchedulerCapabilities = [
            .asynchronous, .serial, .cancellation, .timers, .repeating, .virtualTime,
        ]
        if case .embedded = loop { capabilities.insert(.threadConfined) }
        self.capabilities = capabilities
    }

    deinit {
        // Both loops trap when freed holding tasks.
        for cancel in pending.removeAll() { cancel() }
    }

    private var eventLoop: any EventLoop {
        switch loop {
        case .embedded(let loop): loop
        case .asyncTesting(let loop): loop
        }
    }

    var now: SchedulerTime { SchedulerTime(eventLoop.now) }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        try? schedule(at: now, action)
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let pending = self.pending
        let id = pending.add(at: deadline)
        let task = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(deadline.nanoseconds)) {
            _ = pending.remove(id)
            action()
        }
        return tracked(id) { task.cancel() }
    }

    func schedule(
        at deadline: SchedulerTime, repeatingEvery interval: Duration, leeway: Duration,
        _ action: @escaping SchedulerAction
    ) throws(SchedulerError) -> any Disposable {
        let spec = try RepeatSpec(interval: interval, leeway: leeway)
        let initial = max(0, try now.duration(to: deadline).checkedNanoseconds())
        let pending = self.pending
        let id = pending.add(at: deadline)
        let loop = eventLoop
        let task = loop.scheduleRepeatedTask(
            initialDelay: .nanoseconds(initial), delay: .nanoseconds(spec.intervalNanoseconds)
        ) { _ in
            pending.ran(id)
            action()
            // NIO schedules the next run `delay` after this one, in virtual time.
            let next = (try? SchedulerTime(loop.now).advanced(by: interval)) ?? .distantFuture
            pending.due(id, at: next)
        }
        return tracked(id) { task.cancel() }
    }

    /// Attaches `cancel` to ledger entry `id`; the disposable forgets the entry and cancels.
    private func tracked(_ id: UInt64, cancel: @escaping @Sendable () -> Void) -> any Disposable {
        let pending = self.pending
        pending.attach(id, cancel)
        return ActionDisposable { pending.remove(id)?() }
    }

    func step() -> Bool {
        guard let due = pending.earliest() else {
            // Nothing of ours is due, but the async loop may still be busy with what a
            // cancellation queued on it: wait for that, without moving time.
            advance(to: now)
            return false
        }
        advance(to: max(due.time, now))
        // A deadline the loop turned out not to hold (NIO set a repeating task's first one
        // itself, from a later `now`) is forgotten, so stepping always makes progress.
        if pending.earliest() == due { pending.ran(due.id) }
        return true
    }

    func advance(to target: SchedulerTime) {
        let deadline = NIODeadline.uptimeNanoseconds(target.nanoseconds)
        switch loop {
        case .embedded(let loop):
            loop.advanceTime(to: deadline)
        case .asyncTesting(let loop):
            // Blocks the caller until the loop has advanced. The task runs on a queue of its
            // own, not the cooperative pool, which a blocked test may be holding. (From
            // inside one of the loop's own actions this would wait on itself: don't.)
            let done = DispatchSemaphore(value: 0)
            Task(executorPreference: Self.driver) {
                await loop.advanceTime(to: deadline)
                done.signal()
            }
            done.wait()
        }
    }

    /// Where the async loop's `advanceTime` runs while a caller blocks on it.
    private static let driver = QueueTaskExecutor(label: "nio-asynctesting driver")
}

/// When each piece of work a test event loop holds is next due, and how to cancel it.
final class DeadlineLedger: Sendable {
    private struct Entry: Comparable {
        let time: SchedulerTime
        let sequence: UInt64
        let id: UInt64
        static func < (a: Entry, b: Entry) -> Bool { (a.time, a.sequence) < (b.time, b.sequence) }
    }

    private struct State {
        /// Deadlines in order; an entry is stale once its work is gone or due at another time.
        var queue = Heap<Entry>()
        var work: [UInt64: (due: SchedulerTime?, cancel: @Sendable () -> Void)] = [:]
        var sequence: UInt64 = 0

        mutating func due(_ id: UInt64, at time: SchedulerTime) {
            guard work[id] != nil else { return }
            work[id]?.due = time
            sequence += 1
            queue.insert(Entry(time: time, sequence: sequence, id: id))
        }
    }

    // NIO's lock rather than `Mutex`: ThreadSanitizer sees a pthread mutex, not the futex
    // under `Mutex`, and `make tsan` runs these adapters too.
    private let state = NIOLockedValueBox(State())

    /// Records new work due at `time`; returns its ID.
    func add(at time: SchedulerTime) -> UInt64 {
        state.withLockedValue { state in
            state.sequence += 1
            let id = state.sequence
            state.work[id] = (nil, { @Sendable in })
            state.due(id, at: time)
            return id
        }
    }

    /// Sets how to cancel `id`, unless it is already gone.
    func attach(_ id: UInt64, _ cancel: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.work[id]?.cancel = cancel }
    }

    /// Records that repeating work `id` is running: no deadline until ``due(_:at:)``.
    func ran(_ id: UInt64) {
        state.withLockedValue { $0.work[id]?.due = nil }
    }

    /// Records that `id`, unless it is gone, is next due at `time`.
    func due(_ id: UInt64, at time: SchedulerTime) {
        state.withLockedValue { $0.due(id, at: time) }
    }

    /// Forgets `id` (it ran once and for all, or is disposed); returns its cancel action.
    func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
        state.withLockedValue { $0.work.removeValue(forKey: id)?.cancel }
    }

    /// Forgets everything; returns every cancel action.
    func removeAll() -> [@Sendable () -> Void] {
        state.withLockedValue { state in
            defer { state = State() }
            return state.work.values.map(\.cancel)
        }
    }

    /// A deadline of some work.
    struct Due: Equatable {
        let time: SchedulerTime
        let id: UInt64
    }

    /// The earliest deadline of any work.
    func earliest() -> Due? {
        state.withLockedValue { state in
            while let first = state.queue.min, state.work[first.id]?.due != first.time { state.queue.removeMin() }
            return state.queue.min.map { Due(time: $0.time, id: $0.id) }
        }
    }
}

extension SchedulerTime {
    /// NIO's deadline as a scheduler time, on the same uptime clock.
    init(_ deadline: NIODeadline) {
        self = (try? SchedulerTime(nanoseconds: deadline.uptimeNanoseconds)) ?? .distantFuture
    }
}
