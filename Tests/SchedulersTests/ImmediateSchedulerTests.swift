import Foundation
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct ImmediateSchedulerTests {
    let scheduler = ImmediateScheduler.shared

    @Test func runsSynchronouslyOnTheCallersThreadAndReturnsNil() {
        let ran = Lock<Thread?>(nil)
        let handle = scheduler.schedule { ran.withLock { $0 = Thread.current } }
        #expect(ran.withLock { $0 } === Thread.current)
        #expect(handle == nil)
    }

    @Test func doesNotChangeTheCurrentScheduler() {
        let outer = QueueScheduler(name: "outer")
        let seen = Lock<(any Scheduler)?>(nil)
        let done = Signal()
        outer.schedule {
            ImmediateScheduler.shared.schedule { seen.withLock { $0 = CurrentScheduler.value } }
            done.fire()
        }
        #expect(done.wait())
        #expect(seen.withLock { $0 } === outer)
    }

    @Test func timedActionNeverRunsEarly() throws {
        let deadline = try scheduler.now.advanced(by: .milliseconds(20))
        let ranAt = Lock<SchedulerTime?>(nil)
        try scheduler.schedule(at: deadline) { ranAt.withLock { $0 = ImmediateScheduler.shared.now } }
        let time = try #require(ranAt.withLock { $0 })
        #expect(time >= deadline)
    }

    @Test func repeatingIsRefusedAndTheSchedulerKeepsWorking() {
        #expect(throws: SchedulerError.repeatingUnsupported(scheduler: scheduler.name)) {
            _ = try scheduler.schedule(repeatingEvery: .seconds(1)) {}
        }
        let ran = Atomic<Bool>(false)
        scheduler.schedule { ran.store(true, ordering: .relaxed) }
        #expect(ran.load(ordering: .relaxed) == true)
    }

    @Test func recursionOfAMillionLevelsRunsInALoop() {
        let runs = Atomic<Int>(0)
        scheduler.scheduleRecursive { reschedule in
            if runs.wrappingAdd(1, ordering: .relaxed).newValue < 1_000_000 { reschedule() }
        }
        #expect(runs.load(ordering: .relaxed) == 1_000_000)
    }

    @Test func recursionDefersReschedulesUntilTheBlockReturns() {
        let events = Recorder<String>()
        let runs = Atomic<Int>(0)
        scheduler.scheduleRecursive { reschedule in
            let run = runs.wrappingAdd(1, ordering: .relaxed).newValue
            events.record("start \(run)")
            if run == 1 {
                reschedule()
                reschedule()
            }
            events.record("end \(run)")
        }
        #expect(events.all == ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
    }

    @Test func laterRescheduleRunsAtOnceAndDisposalFromInsideStops() throws {
        let runs = Atomic<Int>(0)
        let handle = Lock<(any Disposable)?>(nil)
        let later = Lock<(@Sendable () -> Void)?>(nil)
        let disposable = try #require(
            scheduler.scheduleRecursive { reschedule in
                if runs.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
                    // Kept for a reschedule after the block returned.
                    later.withLock { $0 = reschedule }
                    return
                }
                handle.withLock { $0 }?.dispose()
                reschedule()
                reschedule()
            })
        handle.withLock { $0 = disposable }
        #expect(runs.load(ordering: .relaxed) == 1)
        later.withLock { $0 }?()
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(disposable.isDisposed)
        later.withLock { $0 }?()
        #expect(runs.load(ordering: .relaxed) == 2)
    }
}
