import Schedulers

extension RuleCatalogue {
    static let ordering: [Rule] = [
        Rule(
            .ordering, 1, "actions from one producer run in FIFO order",
            requires: .serial,
            rationale: "A serial scheduler is a queue: operators that schedule events one by one rely on them arriving in order.",
            hint: "the queue is really FIFO (not a stack or a priority heap without a sequence tie-break); no action is run inline by `schedule`."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let order = Recorder<Int>()
            for index in 0..<1_000 { scheduler.schedule { order.record(index) } }
            try ctx.quiesce(scheduler)
            let observed = order.all
            try ctx.expect(observed == Array(0..<1_000), "order broken: first out of place at \(firstMismatch(observed, Array(0..<1_000)))")
        },
        Rule(
            .ordering, 2, "never two actions at once",
            requires: .serial,
            excludes: .threadConfined,
            rationale: "Code on a serial scheduler needs no locks of its own; one overlap is a data race in every user.",
            hint: "the private queue is serial even when its target is concurrent; `schedule` from several threads does not start workers in parallel."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            // First a rendezvous: the first action waits for the second to start, which only
            // a scheduler that overlaps them allows (a serial one just lets the wait expire).
            // The second judges, so a scheduler that merely reorders them is not blamed here.
            let secondStarted = Signal()
            let firstInside = Box(false)
            let overlapped = Box(false)
            scheduler.schedule {
                firstInside.value = true
                _ = secondStarted.wait(ctx.timing.quietWindow * 2)
                firstInside.value = false
            }
            scheduler.schedule {
                if firstInside.value { overlapped.value = true }
                secondStarted.fire()
            }
            try ctx.quiesce(scheduler)
            try ctx.expect(!overlapped.value, "the second action started while the first was still running")
            // Then load from many threads, counting actions inside at once.
            let meter = OverlapMeter()
            try ctx.onThreads(ctx.producerCount) { _ in
                for _ in 0..<100 {
                    scheduler.schedule {
                        meter.enter()
                        spin(20_000)
                        meter.leave()
                    }
                }
            }
            try ctx.quiesce(scheduler)
            try ctx.expect(meter.maximum == 1, "\(meter.maximum) actions ran at the same time")
        },
        Rule(
            .ordering, 3, "per-producer FIFO and exactly-once with many producer threads",
            requires: .serial,
            excludes: .threadConfined,
            rationale: "With several producers, each one's actions must keep their order and none may be lost or doubled.",
            hint: "the enqueue path is thread-safe (a lock or an atomic queue), and no action is dropped when two threads enqueue at once."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let order = Recorder<Int>()
            let producers = ctx.producerCount
            try ctx.onThreads(producers) { producer in
                for index in 0..<500 { scheduler.schedule { order.record(producer * 1_000_000 + index) } }
            }
            try ctx.quiesce(scheduler)
            let all = order.all
            try ctx.expect(all.count == producers * 500, "\(all.count) runs for \(producers * 500) actions")
            try ctx.expect(Set(all).count == all.count, "some action ran twice")
            for producer in 0..<producers {
                let mine = all.filter { $0 / 1_000_000 == producer }.map { $0 % 1_000_000 }
                try ctx.expect(mine == Array(0..<500), "producer \(producer)'s actions out of order or missing")
            }
        },
        Rule(
            .ordering, 4, "an action scheduled from inside an action does not run re-entrantly",
            excludes: [.synchronous, .subscription, .threadConfined],
            rationale: "Nested work must not run inside the `schedule` call of the action that asked for it; that breaks the outer action's invariants and grows the stack.",
            hint: "`schedule` called from one of the scheduler's own actions enqueues instead of calling the action; a trampoline defers it until the outer action returns."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let outerThread = Box<UInt?>(nil)
            let reentered = Box(false)
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                scheduler.schedule {
                    outerThread.value = ThreadProbe.id
                    scheduler.schedule {
                        if outerThread.value == ThreadProbe.id { reentered.value = true }
                        done.fire()
                    }
                    outerThread.value = nil
                }
                try ctx.waitFor(done, on: scheduler, "the nested action ran")
            }
            try ctx.expect(!reentered.value, "the nested action ran inside the outer action's `schedule` call")
        },
        Rule(
            .ordering, 5, "an asynchronous scheduler never runs the action inside the `schedule` call",
            requires: .asynchronous,
            rationale: "Callers set up state after `schedule` returns (storing the handle, say) that the action relies on; an inline run sees it missing.",
            hint: "`schedule` never calls the action directly, not even from the scheduler's own thread or when the queue is empty."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let inline = Box(0)
            let last = Signal()
            // The flag is per caller thread: an action seeing it set on its own thread is
            // running inside that thread's `schedule` call.
            let inside = Box<UInt?>(nil)
            @Sendable func scheduleChecked(_ then: @escaping @Sendable () -> Void = {}) {
                inside.value = ThreadProbe.id
                scheduler.schedule {
                    if inside.value == ThreadProbe.id { inline.update { $0 += 1 } }
                    then()
                }
                inside.value = nil
            }
            for index in 0..<200 {
                scheduleChecked { if index == 199 { last.fire() } }
                // Also from inside one of the scheduler's own actions.
                if index == 100 { scheduler.schedule { scheduleChecked() } }
            }
            try ctx.waitFor(last, on: scheduler, "the last action ran")
            try ctx.settle(scheduler)
            try ctx.expect(inline.value == 0, "\(inline.value) actions ran inside their `schedule` call")
        },
    ]
}

/// The first index at which two arrays differ, for failure messages.
func firstMismatch<T: Equatable>(_ observed: [T], _ expected: [T]) -> String {
    for (index, (a, b)) in zip(observed, expected).enumerated() where a != b {
        return "index \(index): got \(a), expected \(b)"
    }
    return "lengths \(observed.count) vs \(expected.count)"
}
