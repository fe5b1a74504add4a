import Dispatch
import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@Suite struct TestSchedulerTests {
    @Test func stepOnAnEmptySchedulerIsANoOp() {
        let scheduler = TestScheduler()
        #expect(!scheduler.step())
        #expect(scheduler.now == .zero)
    }

    @Test func stepsRunOneAtATimeInFIFOOrder() {
        let scheduler = TestScheduler()
        let log = Recorder<Int>()
        for value in 0..<5 { scheduler.schedule { log.record(value) } }
        #expect(log.all.isEmpty, "nothing runs before the scheduler is driven")
        #expect(scheduler.step())
        #expect(log.all == [0])
        #expect(scheduler.step(2) == 2)
        #expect(log.all == [0, 1, 2])
        #expect(scheduler.stepAll() == 2)
        #expect(log.all == [0, 1, 2, 3, 4])
    }

    @Test func runsInTimeOrderWithFIFOTiesAndNowAtTheActionsTime() throws {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        for (name, ms) in [("c", 30), ("a1", 10), ("b", 20), ("a2", 10), ("a3", 10)] {
            try scheduler.schedule(after: .milliseconds(ms)) {
                log.record("\(name)@\(scheduler.now.nanoseconds / 1_000_000)")
            }
        }
        scheduler.run()
        #expect(log.all == ["a1@10", "a2@10", "a3@10", "b@20", "c@30"])
        #expect(scheduler.now.nanoseconds == 30_000_000)
    }

    @Test func advanceIsInclusiveAndRunsWhatIsScheduledDuringIt() throws {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        try scheduler.schedule(after: .seconds(1)) {
            log.record("first")
            _ = try? scheduler.schedule(after: .seconds(1)) { log.record("scheduled during") }
            _ = try? scheduler.schedule(after: .seconds(2)) { log.record("too late") }
        }
        try scheduler.advance(by: .seconds(2))
        #expect(log.all == ["first", "scheduled during"])
        #expect(scheduler.now == (try SchedulerTime.zero.advanced(by: .seconds(2))))
        scheduler.advance(to: .zero)
        #expect(scheduler.now == (try SchedulerTime.zero.advanced(by: .seconds(2))), "time never moves back")
    }

    @Test func repeatingActionsInterleaveByTime() throws {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        let fast = try scheduler.schedule(repeatingEvery: .seconds(2)) {
            log.record("2s@\(scheduler.now.nanoseconds / 1_000_000_000)")
        }
        let slow = try scheduler.schedule(repeatingEvery: .seconds(3)) {
            log.record("3s@\(scheduler.now.nanoseconds / 1_000_000_000)")
        }
        try scheduler.advance(by: .seconds(6))
        // Both are due at 6s; the 3s tick was queued first (when it ran at 3s), so it runs first.
        #expect(log.all == ["2s@2", "3s@3", "2s@4", "3s@6", "2s@6"])
        fast.dispose()
        try scheduler.advance(by: .seconds(3))
        #expect(log.all.suffix(1) == ["3s@9"])
        slow.dispose()
        #expect(scheduler.stepAll() == 0)
    }

    @Test func disposedActionsAreSkippedAndReleased() {
        let scheduler = TestScheduler()
        let box = WeakBox<Token>()
        let ran = Atomic<Bool>(false)
        let handle: (any Disposable)? = {
            let token = Token()
            box.object = token
            return scheduler.schedule {
                _ = token
                ran.store(true, ordering: .relaxed)
            }
        }()
        handle?.dispose()
        #expect(box.object == nil)
        #expect(scheduler.stepAll() == 0)
        #expect(ran.load(ordering: .relaxed) == false)
    }

    @Test func actionsRunAsTheCurrentScheduler() {
        let scheduler = TestScheduler()
        let current = Atomic<Bool>(false)
        scheduler.schedule { current.store(CurrentScheduler.value === scheduler, ordering: .relaxed) }
        scheduler.step()
        #expect(current.load(ordering: .relaxed) == true)
    }

    @Test func recursionOfAMillionLevels() {
        let scheduler = TestScheduler()
        let runs = Atomic<Int>(0)
        scheduler.scheduleRecursive { reschedule in
            if runs.wrappingAdd(1, ordering: .relaxed).newValue < 1_000_000 { reschedule() }
        }
        #expect(scheduler.run() == 1_000_000)
        #expect(runs.load(ordering: .relaxed) == 1_000_000)
    }

    @Test func schedulingFromManyThreadsIsSafe() {
        let scheduler = TestScheduler()
        let runs = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { scheduler.schedule { runs.wrappingAdd(1, ordering: .relaxed) } }
        }
        #expect(scheduler.run() == 8_000)
        #expect(runs.load(ordering: .relaxed) == 8_000)
    }

    @Test func drivesFromTwoThreadsNeverRunTheirActionsAtOnce() {
        let scheduler = TestScheduler()
        let running = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let ran = Atomic<Int>(0)
        // Each thread queues an action and drives, a step or an advance in turn: without the
        // gate, one thread's drive takes the other's action while its own still runs. New
        // threads released together (one could be done before a pool's second began), pinned
        // to two cores so that a loaded machine still runs them side by side.
        let finished = Threads.run(2, pinned: true, within: .seconds(60)) { thread in
            for round in 0..<10_000 {
                scheduler.schedule {
                    if running.wrappingAdd(1, ordering: .relaxed).newValue > 1 {
                        overlaps.wrappingAdd(1, ordering: .relaxed)
                    }
                    for _ in 0..<200 { _ = running.load(ordering: .relaxed) }
                    running.wrappingSubtract(1, ordering: .relaxed)
                    ran.wrappingAdd(1, ordering: .relaxed)
                }
                if (round + thread) % 2 == 0 { scheduler.step() } else { scheduler.advance(to: scheduler.now) }
            }
        }
        #expect(finished)
        scheduler.run()
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(ran.load(ordering: .relaxed) == 20_000)
    }

    @Test func advancesByFromTwoThreadsAddUp() {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        // Each reads the time inside its drive: one that read it before the other's moved it
        // would set it to its own, older sum.
        let finished = Threads.run(2, pinned: true, within: .seconds(60)) { thread in
            for _ in 0..<10_000 {
                if thread == 0 {
                    try? scheduler.advance(by: .nanoseconds(1))
                } else {
                    clock.advance(by: .nanoseconds(1))
                }
            }
        }
        #expect(finished)
        #expect(scheduler.now.nanoseconds == 20_000)
    }

    @Test func aDriveFromInsideAnActionIsPartOfTheDriveThatRunsIt() throws {
        let scheduler = TestScheduler()
        let log = Recorder<String>()
        try scheduler.schedule(after: .milliseconds(2)) { log.record("later") }
        scheduler.schedule {
            log.record("outer")
            // Waiting for the drive that runs this action would never end.
            try? scheduler.advance(by: .milliseconds(2))
            log.record("outer returns")
        }
        #expect(scheduler.step())
        #expect(log.all == ["outer", "later", "outer returns"])
        #expect(scheduler.now.nanoseconds == 2_000_000)
    }

    @Test func aDroppedSchedulerIsFreedWithItsPendingWork() throws {
        let scheduler = WeakBox<TestScheduler>()
        let captured = WeakBox<Token>()
        do {
            let strong = TestScheduler()
            let token = Token()
            scheduler.object = strong
            captured.object = token
            try strong.schedule(after: .seconds(1)) { _ = token }
            _ = try strong.schedule(repeatingEvery: .seconds(1)) { _ = token }
        }
        #expect(scheduler.object == nil, "pending entries keep the scheduler alive")
        #expect(captured.object == nil)
    }

    @Test func subscriptionTimersInsideATestSchedulerUseVirtualTime() throws {
        let scheduler = TestScheduler()
        let fired = Atomic<Bool>(false)
        scheduler.schedule {
            _ = try? SubscriptionScheduler.shared.schedule(after: .seconds(1)) { fired.store(true, ordering: .relaxed) }
        }
        scheduler.step()
        try scheduler.advance(by: .seconds(1))
        #expect(fired.load(ordering: .relaxed) == true)
    }

    @Test func invalidRepeatingIsRefused() {
        let scheduler = TestScheduler()
        #expect(throws: SchedulerError.invalidInterval(.seconds(-1))) {
            _ = try scheduler.schedule(at: .zero, repeatingEvery: .seconds(-1), leeway: .zero) {}
        }
        #expect(scheduler.pendingCount == 0)
    }
}
