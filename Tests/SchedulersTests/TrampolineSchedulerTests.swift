import Dispatch
import SchedulerProbes
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
        let logs = Lock([[Int]](repeating: [], count: 2))
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

/// The trampoline's own recursion keeps the semantics of ``RecursiveScheduling``.
@Suite struct TrampolineRecursionTests {
    @Test func reschedulesQueueAfterTheNestedWorkOfTheirRun() {
        let order = onFreshThread { () -> [String] in
            let log = Recorder<String>()
            let trampoline = TrampolineScheduler.shared
            let runs = Lock(0)
            trampoline.schedule {
                trampoline.scheduleRecursive { reschedule in
                    let run = runs.withLock { count in
                        defer { count += 1 }
                        return count
                    }
                    log.record("run \(run)")
                    if run < 2 {
                        reschedule()
                        trampoline.schedule { log.record("nested \(run)") }
                    }
                }
                trampoline.schedule { log.record("outer's next") }
            }
            return log.all
        }
        // The first run queues behind nothing, the outer action's next work behind it; a
        // run's reschedule is queued when the block returns, after what the block scheduled.
        #expect(order == ["run 0", "outer's next", "nested 0", "run 1", "nested 1", "run 2"])
    }

    @Test func twoReschedulesInOneRunGiveTwoRuns() {
        let runs = onFreshThread { () -> Int in
            let count = Lock(0)
            TrampolineScheduler.shared.scheduleRecursive { reschedule in
                let run = count.withLock { count in
                    defer { count += 1 }
                    return count
                }
                if run == 0 {
                    reschedule()
                    reschedule()
                }
            }
            return count.withLock { $0 }
        }
        #expect(runs == 3)
    }

    @Test func disposingStopsRunsAlreadyQueued() {
        let runs = onFreshThread { () -> Int in
            let count = Lock(0)
            let handle = Lock<(any Disposable)?>(nil)
            TrampolineScheduler.shared.schedule {
                let recursion = TrampolineScheduler.shared.scheduleRecursive { reschedule in
                    let run = count.withLock { count in
                        defer { count += 1 }
                        return count
                    }
                    reschedule()
                    // The run just queued must not happen: disposal comes before it starts.
                    if run == 1 { handle.withLock { $0 }?.dispose() }
                }
                handle.withLock { $0 = recursion }
            }
            return count.withLock { $0 }
        }
        #expect(runs == 2)
    }

    @Test func aLaterRescheduleFromAnotherThreadRunsThere() {
        let saved = Lock<(@Sendable () -> Void)?>(nil)
        let ranOn = Recorder<Bool>()
        let done = Signal()
        let starter = onFreshThread { () -> Bool in
            TrampolineScheduler.shared.scheduleRecursive { reschedule in
                let first = saved.withLock { slot in
                    defer { if slot == nil { slot = reschedule } }
                    return slot == nil
                }
                ranOn.record(first)
                if !first { done.fire() }
            }
            return true
        }
        #expect(starter == true)
        // The block returned long ago: this reschedule runs at once, on the caller's trampoline.
        onFreshThread { saved.withLock { $0 }?() }
        #expect(done.wait())
        #expect(ranOn.all == [true, false])
    }

    @Test func deepRecursionDoesNotGrowTheStack() {
        let steps = onFreshThread { () -> Int in
            let count = Lock(0)
            TrampolineScheduler.shared.scheduleRecursive { reschedule in
                if count.withLock({
                    $0 += 1
                    return $0
                }) < 200_000 {
                    reschedule()
                }
            }
            return count.withLock { $0 }
        }
        #expect(steps == 200_000)
    }
}
