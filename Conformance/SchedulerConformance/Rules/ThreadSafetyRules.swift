import SchedulerProbes
import Schedulers
import Synchronization

extension RuleCatalogue {
    static let threadSafety: [Rule] = [
        Rule(
            .thr1,
            """
            scheduling from many threads at once runs every action exactly once, and every timer, repeating timer and \
            recursion
            """,
            excludes: .threadConfined,
            rationale:
                "Schedulers are shared by every thread of an app; a lost or doubled action is a lost or doubled event.",
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
                        if remaining.update({
                            $0 -= 1
                            return $0
                        }) == 0 {
                            done.fire()
                        }
                    }
                }
            }
            try ctx.waitFor(done, on: scheduler, "all \(producers * perProducer) actions ran")
            try ctx.settle(scheduler)
            let counts = runs.value
            let lost = counts.filter { $0 == 0 }.count
            let doubled = counts.filter { $0 > 1 }.count
            try ctx.expect(lost == 0 && doubled == 0, "\(lost) actions lost, \(doubled) run more than once")
            try everyDoorFromManyThreads(ctx)
        },
        Rule(
            .thr2, "releasing a scheduler with pending work does not crash, and no action runs twice",
            excludes: [.synchronous, .trampoline],
            rationale:
                """
                Apps drop schedulers while work is queued; the declared policy (run or drop pending work) must hold \
                without a crash.
                """,
            hint:
                "pending actions keep what they need alive (or are cleanly dropped); nothing touches a freed scheduler."
        ) { ctx throws(RuleFailure) in
            try releaseWithPendingWork(ctx)
        },
        Rule(
            .thr3, "no action is leaked after quiescence, run or disposed",
            anyOf: [.serial, .virtualTime, .synchronous, .trampoline],
            rationale:
                """
                Every closure a scheduler ever held must be freed once it ran or was disposed, or long-running apps \
                leak.
                """,
            hint:
                """
                no list of past actions is kept; disposal clears the closure; handles do not form cycles with their \
                actions.
                """
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
            .thr4, "a concurrent scheduler really runs actions at the same time",
            requires: .concurrent,
            rationale:
                """
                Claiming concurrency promises parallelism: users split CPU-bound work across it, and work that waits \
                for other work on the same scheduler deadlocks on one that serialises.
                """,
            hint:
                """
                the queue is created concurrent (and its target too); no serialising lock wraps the actions; one \
                caller's actions are not queued behind each other.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let first = Signal()
            let second = Signal()
            let met = Box(0)
            let done = Signal()
            // A rendezvous, not a hope for overlap: each action waits for the other to start,
            // with the must-happen bound. On a concurrent scheduler the second starts while
            // the first waits, however loaded the machine (only later); one that serialises
            // cannot start it until the first gave up. Both come from one caller, back to back.
            let bound = ctx.timing.mustHappen / 4
            for (mine, theirs) in [(first, second), (second, first)] {
                scheduler.schedule {
                    mine.fire()
                    if theirs.wait(bound) { met.update { $0 += 1 } }
                    done.fire()
                }
            }
            try ctx.waitFor(done, on: scheduler, "the first action finished")
            try ctx.waitFor(done, on: scheduler, "the second action finished")
            try ctx.expect(
                met.value == 2,
                """
                the two actions never ran at the same time: the second did not start while the first waited \(bound) \
                for it
                """
            )
        },
        Rule(
            .thr5, "disposal storms racing scheduling: undisposed actions run exactly once",
            requires: .cancellation, excludes: [.synchronous, .threadConfined],
            rationale:
                """
                Unsubscribing on one thread while another schedules is routine; it must not lose work that was not \
                disposed.
                """,
            hint:
                "the disposed flag belongs to each action, set atomically; disposal never removes a neighbour's entry."
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
                        if keep,
                            keptRemaining.update({
                                $0 -= 1
                                return $0
                            }) == 0
                        {
                            allKeptRan.fire()
                        }
                    }
                    if !keep { handle?.dispose() }
                }
            }
            try ctx.waitFor(allKeptRan, on: scheduler, "every undisposed action ran (\(keptRemaining.value) missing)")
            try ctx.settle(scheduler)
            try ctx.expect(runs.value.allSatisfy { $0 <= 1 }, "an action ran more than once")
        },
        Rule(
            .thr6, "a thread that used the scheduler keeps nothing once it has exited",
            excludes: .threadConfined,
            rationale:
                """
                Servers and thread pools start and end threads all day; per-thread state a scheduler keeps (the \
                current scheduler, a trampoline's queue) that outlives its thread is memory lost for good, a little \
                per thread.
                """,
            hint:
                """
                per-thread state lives in thread-local storage that frees it when the thread exits (a pthread key \
                whose destructor releases it, a thread's own dictionary), never in a registry keyed by thread that \
                nobody prunes.
                """
        ) { ctx throws(RuleFailure) in try threadsLeaveNothingBehind(ctx) },
    ]
}
