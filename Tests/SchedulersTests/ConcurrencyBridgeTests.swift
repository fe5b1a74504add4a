import Dispatch
import SchedulerProbes
import Schedulers
import Testing

/// The bridges to Swift concurrency: a scheduler as an executor, a test scheduler as a clock.
@Suite struct ConcurrencyBridgeTests {
    private actor Counter {
        private let executor: SchedulerExecutor
        private(set) var value = 0
        init(_ executor: SchedulerExecutor) { self.executor = executor }
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func increment() -> (Int, Bool) {
            value += 1
            return (value, executor.isIsolatingCurrentContext() == true)
        }
    }

    @Test func anActorOnAQueueSchedulerRunsThereAsItsCurrentScheduler() async {
        let scheduler = QueueScheduler(name: "actor home")
        let counter = Counter(scheduler.executor)
        let current = Lock<String?>(nil)
        let (value, isolated) = await counter.increment()
        scheduler.schedule { current.withLock { $0 = CurrentScheduler.value?.name } }
        #expect(value == 1)
        #expect(isolated)
        // An action of the scheduler is the same exclusive context as the actor's jobs.
        let checked = Signal()
        scheduler.schedule {
            scheduler.executor.checkIsolated()
            checked.fire()
        }
        #expect(checked.wait())
        #expect(current.withLock { $0 } == "actor home")
    }

    @Test func executorsOnOneSchedulerAreOneContext() {
        let scheduler = QueueScheduler(name: "shared")
        #expect(scheduler.executor.isSameExclusiveExecutionContext(other: scheduler.executor))
        #expect(!scheduler.executor.isSameExclusiveExecutionContext(other: QueueScheduler(name: "other").executor))
        #expect(scheduler.executor.isIsolatingCurrentContext() == false)
    }

    @Test func aSchedulerThatIsNotSerialIsRefused() {
        #expect(throws: SchedulerError.notSerial(scheduler: "concurrent")) {
            try SchedulerExecutor(ConcurrentQueueScheduler(name: "concurrent"))
        }
        #expect(throws: SchedulerError.self) { try SchedulerExecutor(ImmediateScheduler.shared) }
        #expect(throws: SchedulerError.self) { try SchedulerExecutor(TrampolineScheduler.shared) }
    }

    @Test func tasksSleepInVirtualTimeDeterministically() {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let log = Recorder<String>()
        for (name, seconds) in [("b", 2), ("a", 1), ("c", 2)] {
            Task(executorPreference: scheduler.executor) {
                try await clock.sleep(for: .seconds(seconds))
                log.record("\(name)@\(clock.now.offset.components.seconds)")
            }
        }
        // Nothing runs until the scheduler is driven; then every task parks in its sleep.
        #expect(log.all.isEmpty)
        scheduler.advance(to: scheduler.now)
        #expect(log.all.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(log.all == ["a@1"])
        clock.run()
        #expect(log.all == ["a@1", "b@2", "c@2"])
        #expect(clock.now == VirtualClock.Instant(offset: .seconds(2)))
    }

    @Test func aTaskThatPrefersTheExecutorCallsNonisolatedCodeAndSleepsWithoutHops() {
        let scheduler = TestScheduler()
        let executor = scheduler.executor
        let clock = scheduler.clock
        let counter = Counter(executor)
        let seen = Lock<[String]>([])
        Task(executorPreference: executor) {
            var steps = 0
            for _ in 0..<10 { steps = await nonisolatedStep(steps) }
            seen.withLock { $0.append("\(steps) on \(CurrentScheduler.value?.name ?? "none")") }
            try await clock.sleep(for: .seconds(1))
            let (value, isolated) = await counter.increment()
            seen.withLock { $0.append("\(value) isolated \(isolated) at \(clock.now)") }
        }
        // Five jobs and actions: the task's start, the wake-up, the task resumed, its hop to
        // the actor and back. Isolated to the executor, each nonisolated call and each step
        // inside the sleep was a hop through the queue too: 32.
        #expect(scheduler.stepAll() == 5)
        #expect(seen.withLock { $0 } == ["10 on TestScheduler", "1 isolated true at t+1.0 seconds"])
    }

    @Test func deadlinesBetweenNanosecondsAreNeverEarlyAndFarOnesNeverCome() {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let executor = scheduler.executor
        let woke = Recorder<String>()
        let between = clock.now.advanced(by: .nanoseconds(1) / 2)
        Task(executorPreference: executor) {
            try await clock.sleep(until: between)
            woke.record("between at \(clock.now.offset)")
        }
        let forever = Task(executorPreference: executor) {
            do {
                try await clock.sleep(for: .seconds(Int64.max))
                woke.record("forever")
            } catch {
                woke.record("forever cancelled")
            }
        }
        clock.advance(by: .zero)
        #expect(woke.all.isEmpty, "half a nanosecond is not zero")
        clock.run()
        #expect(woke.all == ["between at \(Duration.nanoseconds(1))"], "run() woke the endless sleep: \(woke.all)")
        forever.cancel()
        clock.advance(by: .zero)
        #expect(woke.all.last == "forever cancelled")
    }

    @Test func aDueDeadlineReturnsAndCancellationWakesASleeper() {
        let scheduler = TestScheduler()
        let clock = scheduler.clock
        let outcomes = Recorder<String>()
        Task(executorPreference: scheduler.executor) {
            try await clock.sleep(until: clock.now)
            outcomes.record("due returned")
        }
        let sleeper = Task(executorPreference: scheduler.executor) {
            do {
                try await clock.sleep(for: .seconds(3_600))
                outcomes.record("woke")
            } catch {
                outcomes.record(error is CancellationError ? "cancelled" : "\(error)")
            }
        }
        scheduler.advance(to: scheduler.now)
        #expect(outcomes.all == ["due returned"])
        sleeper.cancel()
        scheduler.advance(to: scheduler.now)
        #expect(outcomes.all == ["due returned", "cancelled"])
        // The cancelled sleep was withdrawn: running the scheduler does not travel an hour.
        clock.run()
        #expect(clock.now.offset == .zero)
    }
}

/// A nonisolated async function the compiler keeps: each call is a switch to the generic
/// executor, which a task that prefers a task executor makes on that executor.
@inline(never) private func nonisolatedStep(_ steps: Int) async -> Int { steps + 1 }
