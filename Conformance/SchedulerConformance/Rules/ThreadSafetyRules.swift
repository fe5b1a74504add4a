import Synchronization
import Schedulers

extension RuleCatalogue {
    static let threadSafety: [Rule] = [
        Rule(
            .threadSafety, 1, "concurrent scheduling from many threads runs every action exactly once",
            excludes: .threadConfined,
            rationale: "Schedulers are shared by every thread of an app; a lost or doubled action is a lost or doubled event.",
            hint: "the enqueue path is protected (a lock, an atomic queue) and the disposed/claimed flags are atomic."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let producers = ctx.producerCount
            let perProducer = 500
            let runs = Box([Int](repeating: 0, count: producers * perProducer))
            let remaining = Box(producers * perProducer)
            let done = Signal()
            try ctx.onThreads(producers) { producer in
                for index in 0..<perProducer {
                    scheduler.schedule {
                        runs.update { $0[producer * perProducer + index] += 1 }
                        if remaining.update({ $0 -= 1; return $0 }) == 0 { done.fire() }
                    }
                }
            }
            try ctx.waitFor(done, on: scheduler, "all \(producers * perProducer) actions ran")
            try ctx.settle(scheduler)
            let counts = runs.value
            let lost = counts.filter { $0 == 0 }.count
            let doubled = counts.filter { $0 > 1 }.count
            try ctx.expect(lost == 0 && doubled == 0, "\(lost) actions lost, \(doubled) run more than once")
        },
        Rule(
            .threadSafety, 2, "releasing a scheduler with pending work does not crash, and no action runs twice",
            excludes: [.synchronous, .trampoline],
            rationale: "Apps drop schedulers while work is queued; the declared policy (run or drop pending work) must hold without a crash.",
            hint: "pending actions keep what they need alive (or are cleanly dropped); nothing touches a freed scheduler."
        ) { ctx throws(RuleFailure) in
            let runs = Box([Int](repeating: 0, count: 100))
            do {
                let scheduler = ctx.makeScheduler()
                for index in 0..<100 { scheduler.schedule { runs.update { $0[index] += 1 } } }
                _ = try? scheduler.schedule(after: .milliseconds(1)) {}
            }
            // The scheduler is gone; give pending work its chance to run (or not) on its own.
            let probe = ctx.makeScheduler()
            try ctx.waitPast(probe.now, on: probe)
            let counts = runs.value
            try ctx.expect(counts.allSatisfy { $0 <= 1 }, "an action ran more than once after the scheduler was released")
        },
        Rule(
            .threadSafety, 3, "no action is leaked after quiescence, run or disposed",
            anyOf: [.serial, .virtualTime, .synchronous, .trampoline],
            rationale: "Every closure a scheduler ever held must be freed once it ran or was disposed, or long-running apps leak.",
            hint: "no list of past actions is kept; disposal clears the closure; handles do not form cycles with their actions."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let live = LiveCounter()
            let cancellable = ctx.subject.capabilities.contains(.cancellation)
            for index in 0..<1_000 {
                let token = live.token()
                let handle = scheduler.schedule { blackHole(token) }
                if cancellable && index % 3 == 0 { handle?.dispose() }
            }
            // Twice, as in CAN-9: finished work may be released batch by batch.
            try ctx.quiesce(scheduler)
            try ctx.quiesce(scheduler)
            try ctx.expectReleased(live, "\(live.count) of 1000 action closures are still alive")
        },
        Rule(
            .threadSafety, 4, "a concurrent scheduler really runs actions at the same time",
            level: .stochastic,
            requires: .concurrent,
            rationale: "Claiming concurrency promises parallelism: users split CPU-bound work across it.",
            hint: "the queue is created concurrent (and its target too); no serialising lock wraps the actions."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let first = Signal()
            let second = Signal()
            let met = Box(0)
            let done = Signal()
            // A rendezvous: each action waits for the other to start, which only works in parallel.
            for (mine, theirs) in [(first, second), (second, first)] {
                scheduler.schedule {
                    mine.fire()
                    if theirs.wait(.seconds(5)) { met.update { $0 += 1 } }
                    done.fire()
                }
            }
            try ctx.waitFor(done, on: scheduler, "the first action finished")
            try ctx.waitFor(done, on: scheduler, "the second action finished")
            try ctx.expect(met.value == 2, "the two actions never ran at the same time")
        },
        Rule(
            .threadSafety, 5, "disposal storms racing scheduling: undisposed actions run exactly once",
            requires: .cancellation, excludes: [.synchronous, .threadConfined],
            rationale: "Unsubscribing on one thread while another schedules is routine; it must not lose work that was not disposed.",
            hint: "the disposed flag belongs to each action, set atomically; disposal never removes a neighbour's entry."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let producers = ctx.producerCount
            let perProducer = 300
            let runs = Box([Int](repeating: 0, count: producers * perProducer))
            let keptRemaining = Box(producers * perProducer / 2)
            let allKeptRan = Signal()
            try ctx.onThreads(producers) { producer in
                for index in 0..<perProducer {
                    let id = producer * perProducer + index
                    let keep = index % 2 == 1
                    let handle = scheduler.schedule {
                        runs.update { $0[id] += 1 }
                        if keep, keptRemaining.update({ $0 -= 1; return $0 }) == 0 { allKeptRan.fire() }
                    }
                    if !keep { handle?.dispose() }
                }
            }
            try ctx.waitFor(allKeptRan, on: scheduler, "every undisposed action ran (\(keptRemaining.value) missing)")
            try ctx.settle(scheduler)
            try ctx.expect(runs.value.allSatisfy { $0 <= 1 }, "an action ran more than once")
        },
    ]
}
