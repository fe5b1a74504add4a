import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

/// Recursive scheduling on the asynchronous real-time schedulers (SEMANTICS.md §4).
@Suite struct RecursionTests {
    static let factories: [@Sendable () -> any Scheduler] = [
        { QueueScheduler(name: "queue") },
        { ConcurrentQueueScheduler(name: "concurrent") },
    ]

    @Test(arguments: 0..<2)
    func noRescheduleRunsOnceAndTwiceRunsTwoMoreWithoutReentry(_ index: Int) {
        let scheduler = Self.factories[index]()
        let runs = Atomic<Int>(0)
        let meter = OverlapMeter()
        let group = DispatchGroup()
        group.enter()
        group.enter()
        group.enter()
        scheduler.scheduleRecursive { reschedule in
            meter.enter()
            if runs.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
                reschedule()
                reschedule()
            }
            // Deferred: rescheduled runs must not start before this block returns.
            meter.leave()
            group.leave()
        }
        #expect(group.wait(timeout: .now() + mustHappen) == .success)
        #expect(runs.load(ordering: .relaxed) == 3)
    }

    @Test(arguments: 0..<2)
    func asynchronousRescheduleFromAnotherThreadRuns(_ index: Int) {
        let scheduler = Self.factories[index]()
        let runs = Atomic<Int>(0)
        let second = Signal()
        scheduler.scheduleRecursive { reschedule in
            guard runs.wrappingAdd(1, ordering: .relaxed).newValue == 1 else { return second.fire() }
            Thread.detach { reschedule() }
        }
        #expect(second.wait())
        #expect(runs.load(ordering: .relaxed) == 2)
    }

    @Test(arguments: 0..<2)
    func disposingStopsEveryFurtherRun(_ index: Int) {
        let scheduler = Self.factories[index]()
        let runs = Atomic<Int>(0)
        let tenth = Signal()
        let handle = scheduler.scheduleRecursive { reschedule in
            if runs.wrappingAdd(1, ordering: .relaxed).newValue == 10 { tenth.fire() }
            reschedule()
        }
        #expect(tenth.wait())
        handle?.dispose()
        let stoppedAt = runs.load(ordering: .relaxed)
        // At most the one run already past its disposal check may still finish.
        let sentinel = Signal()
        scheduler.schedule { sentinel.fire() }
        #expect(sentinel.wait())
        let sentinel2 = Signal()
        scheduler.schedule { sentinel2.fire() }
        #expect(sentinel2.wait())
        #expect(runs.load(ordering: .relaxed) <= stoppedAt + 1)
    }

    @Test func disposingFromInsideStopsIt() {
        let scheduler = QueueScheduler()
        let runs = Atomic<Int>(0)
        let handle = WeakDisposable()
        let strong = Lock<(any Disposable)?>(nil)
        let gate = block(scheduler)
        let disposable = scheduler.scheduleRecursive { reschedule in
            if runs.wrappingAdd(1, ordering: .relaxed).newValue == 5 { handle.object?.dispose() }
            reschedule()
        }
        strong.withLock { $0 = disposable }
        handle.object = disposable
        gate.fire()
        // Serial: once a sentinel scheduled after disposal has run, nothing is pending.
        while !(disposable?.isDisposed ?? true) { _ = drain(scheduler) }
        #expect(drain(scheduler))
        #expect(runs.load(ordering: .relaxed) == 5)
    }
}

extension Thread {
    /// Starts `body` on a new thread.
    static func detach(_ body: @escaping @Sendable () -> Void) {
        Thread(block: body).start()
    }
}
