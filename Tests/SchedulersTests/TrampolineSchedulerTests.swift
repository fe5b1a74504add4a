import Dispatch
import Schedulers
import Synchronization
import Testing

@Suite struct TrampolineSchedulerTests {
    let trampoline = TrampolineScheduler.shared

    @Test func nestedSchedulesRunAfterTheOuterActionInOrder() {
        let order = onFreshThread { () -> [Int] in
            let order = Recorder<Int>()
            let trampoline = TrampolineScheduler.shared
            trampoline.schedule {
                order.record(1)
                trampoline.schedule {
                    order.record(3)
                    trampoline.schedule { order.record(5) }
                    order.record(4)
                }
                order.record(2)
            }
            return order.all
        }
        #expect(order == [1, 2, 3, 4, 5])
    }

    @Test func disposedQueuedActionIsSkippedAndStateResets() {
        let result = onFreshThread { () -> ([String], Bool, Bool) in
            let log = Recorder<String>()
            let trampoline = TrampolineScheduler.shared
            trampoline.schedule {
                let skipped = trampoline.schedule { log.record("skipped") }
                trampoline.schedule { log.record("kept") }
                skipped?.dispose()
                log.record("outer")
            }
            let idle = !trampoline.isRunningOnThisThread
            let ranInline = Atomic<Bool>(false)
            trampoline.schedule { ranInline.store(true, ordering: .relaxed) }
            return (log.all, idle, ranInline.load(ordering: .relaxed))
        }
        #expect(result?.0 == ["outer", "kept"])
        #expect(result?.1 == true)
        #expect(result?.2 == true)
    }

    @Test func threadsDoNotShareAQueue() {
        // Two threads each run a trampoline at the same moment; each sees only its own work.
        let bothInside = DispatchGroup()
        let logs = Mutex([[Int]](repeating: [], count: 2))
        bothInside.enter()
        bothInside.enter()
        onThreads(2) { thread in
            TrampolineScheduler.shared.schedule {
                for value in 0..<3 {
                    TrampolineScheduler.shared.schedule { logs.withLock { $0[thread].append(value) } }
                }
                bothInside.leave()
                _ = bothInside.wait(timeout: .now() + mustHappen)
            }
        }
        #expect(logs.withLock { $0 } == [[0, 1, 2], [0, 1, 2]])
    }

    @Test func runsAsTheCurrentSchedulerAndRestoresIt() {
        let seen = onFreshThread { () -> [Bool] in
            let inside = Atomic<Bool>(false)
            TrampolineScheduler.shared.schedule {
                inside.store(CurrentScheduler.value === TrampolineScheduler.shared, ordering: .relaxed)
            }
            return [inside.load(ordering: .relaxed), CurrentScheduler.value == nil]
        }
        #expect(seen == [true, true])
    }

    @Test func recursionOfAMillionLevelsDoesNotGrowTheStack() {
        let runs = onFreshThread { () -> Int in
            let runs = Atomic<Int>(0)
            TrampolineScheduler.shared.scheduleRecursive { reschedule in
                if runs.wrappingAdd(1, ordering: .relaxed).newValue < 1_000_000 { reschedule() }
            }
            return runs.load(ordering: .relaxed)
        }
        #expect(runs == 1_000_000)
    }

    @Test func timersAreRefused() {
        #expect(throws: SchedulerError.timersUnsupported(scheduler: trampoline.name)) {
            try trampoline.schedule(after: .milliseconds(1)) {}
        }
    }
}
