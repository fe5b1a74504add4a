import HeapModule
import Schedulers

/// A recursion whose runs are disposed with it, recorded one critical section too late (see
/// ``FaultyVirtualMutant/Fault/recursionRecordsHandleLate``).
final class LateRecordingRecursion: Disposable, Sendable {
    private let scheduler: any Scheduler
    private let block: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// A run's handle as recorded, with when it was recorded (for a trace nobody reads).
    private final class Entry: Sendable {
        let handle: any Disposable
        let recorded = ContinuousClock.now
        init(_ handle: any Disposable) { self.handle = handle }
    }

    private let state = Lock<(disposed: Bool, entries: [Entry])>((false, []))

    init(on scheduler: any Scheduler, _ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.scheduler = scheduler
        self.block = block
    }

    func start() -> any Disposable {
        scheduleRun()
        return self
    }

    private func scheduleRun() {
        guard let handle = scheduler.schedule({ self.run() }) else { return }
        if state.withLock({ $0.disposed }) {
            handle.dispose()
            return
        }
        let entry = Entry(handle)
        state.withLock { $0.entries.append(entry) }
    }

    private func run() {
        guard !isDisposed else { return }
        let counted = Lock<(inBlock: Bool, count: Int)>((true, 0))
        block {
            let inBlock = counted.withLock { state in
                if state.inBlock { state.count += 1 }
                return state.inBlock
            }
            if !inBlock { self.scheduleRun() }
        }
        let count = counted.withLock { state in
            state.inBlock = false
            return state.count
        }
        for _ in 0..<count { scheduleRun() }
    }

    func dispose() {
        let entries = state.withLock { state -> [Entry] in
            state.disposed = true
            defer { state.entries = [] }
            return state.entries
        }
        for entry in entries { entry.handle.dispose() }
    }

    var isDisposed: Bool { state.withLock { $0.disposed } }
}
