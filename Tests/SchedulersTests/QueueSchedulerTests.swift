import Dispatch
import Foundation
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct QueueSchedulerTests {
    @Test(arguments: QueueScheduler.Priority.allCases)
    func runsInFIFOOrderWithoutOverlapAsTheCurrentScheduler(_ priority: QueueScheduler.Priority) {
        let scheduler = QueueScheduler(priority: priority)
        let order = Recorder<Int>()
        let meter = OverlapMeter()
        let wrongCurrent = Atomic<Int>(0)
        for index in 0..<2_000 {
            scheduler.schedule {
                meter.enter()
                if CurrentScheduler.value !== scheduler { wrongCurrent.wrappingAdd(1, ordering: .relaxed) }
                order.record(index)
                meter.leave()
            }
        }
        #expect(drain(scheduler))
        #expect(order.all == Array(0..<2_000))
        #expect(meter.maximum == 1)
        #expect(wrongCurrent.load(ordering: .relaxed) == 0)
    }

    @Test func staysSerialOnAConcurrentTargetQueue() {
        let target = DispatchQueue(label: "concurrent target", attributes: .concurrent)
        let scheduler = QueueScheduler(name: "on concurrent", targetQueue: target)
        let order = Recorder<Int>()
        let meter = OverlapMeter()
        DispatchQueue.concurrentPerform(iterations: 4) { producer in
            for index in 0..<500 {
                scheduler.schedule {
                    meter.enter()
                    order.record(producer * 1_000 + index)
                    meter.leave()
                }
            }
        }
        #expect(drain(scheduler))
        #expect(meter.maximum == 1)
        let all = order.all
        #expect(all.count == 2_000)
        for producer in 0..<4 {
            let mine = all.filter { $0 / 1_000 == producer }
            #expect(mine == mine.sorted(), "producer \(producer) order broken")
        }
    }

    @Test func neverRunsBeforeScheduleReturns() {
        let scheduler = QueueScheduler()
        let returned = Atomic<Bool>(false)
        let ranEarly = Atomic<Bool>(false)
        let release = block(scheduler)
        scheduler.schedule { if !returned.load(ordering: .acquiring) { ranEarly.store(true, ordering: .relaxed) } }
        returned.store(true, ordering: .releasing)
        release.fire()
        #expect(drain(scheduler))
        #expect(ranEarly.load(ordering: .relaxed) == false)
    }

    @Test func disposedBeforeStartNeverRunsAndReleasesItsClosure() {
        let scheduler = QueueScheduler()
        let release = block(scheduler)
        let ran = Atomic<Bool>(false)
        let box = WeakBox<Token>()
        let handle: (any Disposable)? = {
            let token = Token()
            box.object = token
            return scheduler.schedule {
                _ = token
                ran.store(true, ordering: .relaxed)
            }
        }()
        handle?.dispose()
        handle?.dispose()
        #expect(handle?.isDisposed == true)
        #expect(box.object == nil)
        release.fire()
        #expect(drain(scheduler))
        #expect(ran.load(ordering: .relaxed) == false)
    }

    @Test func releasesTheClosureAfterRunning() {
        let scheduler = QueueScheduler()
        let box = WeakBox<Token>()
        do {
            let token = Token()
            box.object = token
            scheduler.schedule { _ = token }
        }
        #expect(drain(scheduler))
        #expect(box.object == nil)
    }

    @Test func delayedActionNeverRunsEarlyAndIsCurrent() throws {
        let scheduler = QueueScheduler()
        let deadline = try scheduler.now.advanced(by: .milliseconds(30))
        let observed = Lock<(SchedulerTime, Bool)?>(nil)
        let done = Signal()
        try scheduler.schedule(at: deadline) {
            observed.withLock { $0 = (scheduler.now, CurrentScheduler.value === scheduler) }
            done.fire()
        }
        #expect(done.wait())
        let (ranAt, current) = try #require(observed.withLock { $0 })
        #expect(ranAt >= deadline)
        #expect(current)
    }

    @Test func disposedDelayedActionNeverFires() throws {
        let scheduler = QueueScheduler()
        let fired = Atomic<Bool>(false)
        let handle = try scheduler.schedule(after: .milliseconds(20)) { fired.store(true, ordering: .relaxed) }
        handle?.dispose()
        let sentinel = Signal()
        try scheduler.schedule(after: .milliseconds(60)) { sentinel.fire() }
        #expect(sentinel.wait())
        #expect(fired.load(ordering: .relaxed) == false)
    }

    @Test func repeatingTicksAsCurrentAndStopsWhenDisposed() throws {
        let scheduler = QueueScheduler()
        let ticks = Atomic<Int>(0)
        let notCurrent = Atomic<Int>(0)
        let third = Signal()
        let handle = try scheduler.schedule(repeatingEvery: .milliseconds(5), leeway: .milliseconds(1)) {
            if CurrentScheduler.value !== scheduler { notCurrent.wrappingAdd(1, ordering: .relaxed) }
            if ticks.wrappingAdd(1, ordering: .relaxed).newValue == 3 { third.fire() }
        }
        #expect(third.wait())
        // Disposed from the scheduler's own queue, so no tick is in flight: none may follow.
        let stopped = Signal()
        let count = Lock(0)
        scheduler.schedule {
            handle.dispose()
            count.withLock { $0 = ticks.load(ordering: .relaxed) }
            stopped.fire()
        }
        #expect(stopped.wait())
        let sentinel = Signal()
        try scheduler.schedule(after: .milliseconds(40)) { sentinel.fire() }
        #expect(sentinel.wait())
        #expect(ticks.load(ordering: .relaxed) == count.withLock { $0 })
        #expect(notCurrent.load(ordering: .relaxed) == 0)
    }

    @Test func repeatingKeepsFiringWhenTheHandleIsDroppedAndReleasesItsClosureOnDisposal() throws {
        let scheduler = QueueScheduler()
        let handle = WeakDisposable()
        let captured = WeakBox<Token>()
        let ticks = Atomic<Int>(0)
        let third = Signal()
        do {
            let token = Token()
            captured.object = token
            handle.object = try scheduler.schedule(repeatingEvery: .milliseconds(5)) {
                _ = token
                guard ticks.wrappingAdd(1, ordering: .relaxed).newValue == 3 else { return }
                // Nobody outside holds the handle any more, yet it is alive: clean up.
                handle.object?.dispose()
                third.fire()
            }
        }
        #expect(third.wait())
        #expect(drain(scheduler))
        #expect(captured.object == nil, "the disposed timer still holds its action")
    }

    @Test func invalidRepeatingRequestsAreRefusedAndTheSchedulerKeepsWorking() {
        let scheduler = QueueScheduler()
        #expect(throws: SchedulerError.invalidInterval(.zero)) {
            _ = try scheduler.schedule(repeatingEvery: .zero) {}
        }
        #expect(throws: SchedulerError.invalidLeeway(.seconds(-1))) {
            _ = try scheduler.schedule(repeatingEvery: .seconds(1), leeway: .seconds(-1)) {}
        }
        #expect(throws: SchedulerError.self) {
            _ = try scheduler.schedule(repeatingEvery: .seconds(Int64.max)) {}
        }
        #expect(throws: SchedulerError.self) {
            _ = try scheduler.schedule(after: .seconds(Int64.max / 2)) {}
        }
        #expect(drain(scheduler))
    }

    /// A scheduler that keeps rescheduling itself must still let its queue's other work in:
    /// a delayed action, which Dispatch puts on that queue when it falls due. A scheduler that
    /// batched its actions and drained its batches in one loop would never run it. (Another
    /// queue on the same serial target does wait: Dispatch drains a queue that never empties
    /// without turning to its target's other queues.)
    @Test func aSchedulerThatKeepsReschedulingItselfStillRunsItsTimers() throws {
        let busy = QueueScheduler(name: "busy")
        let stop = Signal()
        // Waiting on a signal, not spinning on the count: under the sanitizer, with a soak
        // beside it, a spinning test thread took the core the loop needed.
        let looping = Signal()
        let steps = Atomic<Int>(0)
        @Sendable func step() {
            if steps.add(1, ordering: .relaxed).newValue == 100 { looping.fire() }
            if !stop.hasFired { busy.schedule(step) }
        }
        busy.schedule(step)
        #expect(looping.wait(.seconds(30)), "the rescheduling loop never got going")
        let delayedRan = Signal()
        _ = try busy.schedule(after: .milliseconds(1)) { delayedRan.fire() }
        let ran = delayedRan.wait(.seconds(10))
        stop.fire()
        #expect(ran, "a scheduler rescheduling itself never ran its delayed action")
        #expect(drain(busy))
    }

    @Test func concurrentSchedulingFromManyThreadsRunsEachActionOnce() {
        let scheduler = QueueScheduler()
        let runs = Lock([Int](repeating: 0, count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { producer in
            for _ in 0..<1_000 {
                scheduler.schedule { runs.withLock { $0[producer] += 1 } }
            }
        }
        #expect(drain(scheduler))
        #expect(runs.withLock { $0 } == [Int](repeating: 1_000, count: 8))
    }
}
