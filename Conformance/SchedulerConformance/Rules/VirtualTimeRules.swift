import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let virtualTime: [Rule] =
        [
            Rule(
                .vt1, "nothing runs until the scheduler is driven",
                requires: .virtualTime,
                rationale: "Deterministic tests depend on work waiting for an explicit step or advance.",
                hint: "`schedule` only enqueues; no background thread drains the queue."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let ran = Box(false)
                scheduler.schedule { ran.value = true }
                _ = try? scheduler.schedule(after: .zero) { ran.value = true }
                try ctx.expect(!ran.value, "an action ran before the scheduler was driven")
                try ctx.expect(scheduler.now == scheduler.now, "the clock is not stable while idle")
            },
            Rule(
                .vt2, "a step on an empty scheduler is a no-op",
                requires: .virtualTime,
                rationale: "Test code steps defensively; an empty step must not move time or crash.",
                hint: "`step()` returns false and leaves `now` alone when nothing is pending."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let before = scheduler.now
                try ctx.expect(!scheduler.step(), "step() reported running something on an empty scheduler")
                try ctx.expect(scheduler.now == before, "an empty step moved time from \(before) to \(scheduler.now)")
            },
            Rule(
                .vt3, "step, step(n) and run-all run exactly as many actions as asked",
                requires: [.virtualTime, .singleStep],
                rationale: "Tests assert intermediate states between steps.",
                hint:
                    """
                    `step()` runs one action, `step(n)` at most n, `stepAll()` until empty; disposed entries are \
                    skipped without counting.
                    """
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let log = Recorder<Int>()
                for value in 0..<6 { scheduler.schedule { log.record(value) } }
                try ctx.expect(scheduler.step(), "step() ran nothing")
                try ctx.expect(log.all == [0], "after step(): \(log.all)")
                try ctx.expect(scheduler.step(2) == 2, "step(2) did not run two actions")
                try ctx.expect(log.all == [0, 1, 2], "after step(2): \(log.all)")
                try ctx.expect(scheduler.stepAll() == 3, "stepAll() did not run the remaining three")
                try ctx.expect(log.all == Array(0..<6), "after stepAll(): \(log.all)")
            },
            Rule(
                .vt4, "actions run in time order, equal times in scheduling order",
                requires: .virtualTime,
                rationale:
                    """
                    Test schedulers that fired simultaneous timers out of registration order made tests flaky; ties \
                    must be FIFO.
                    """,
                hint: "order the queue by (time, insertion sequence), not by time alone (heaps are not stable)."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let log = Recorder<String>()
                for (name, ms) in [("c", 30), ("a1", 10), ("b", 20), ("a2", 10), ("a3", 10), ("a4", 10)] {
                    _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                        try scheduler.schedule(after: .milliseconds(ms)) { log.record(name) }
                    }
                }
                scheduler.stepAll()
                try ctx.expect(log.all == ["a1", "a2", "a3", "a4", "b", "c"], "ran \(log.all)")
            },
            Rule(
                .vt5, "repeating actions interleave by time",
                requires: [.virtualTime, .repeating],
                rationale: "Two periodic timers must interleave as they would in real time.",
                hint: "each tick re-queues the next one at time + interval, with a new sequence number."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let log = Recorder<String>()
                let origin = scheduler.now
                let fast = try ctx.attempt("repeating 2s") { () throws(SchedulerError) in
                    try scheduler.schedule(
                        at: origin.advanced(by: .seconds(2)), repeatingEvery: .seconds(2), leeway: .zero
                    ) {
                        log.record("2s@\(origin.duration(to: scheduler.now).components.seconds)")
                    }
                }
                let slow = try ctx.attempt("repeating 3s") { () throws(SchedulerError) in
                    try scheduler.schedule(
                        at: origin.advanced(by: .seconds(3)), repeatingEvery: .seconds(3), leeway: .zero
                    ) {
                        log.record("3s@\(origin.duration(to: scheduler.now).components.seconds)")
                    }
                }
                try ctx.attempt("advance") { () throws(SchedulerError) in try scheduler.advance(by: .seconds(9)) }
                fast.dispose()
                slow.dispose()
                let ticks = log.all
                try ctx.expect(
                    ticks.filter { $0.hasPrefix("2s") } == ["2s@2", "2s@4", "2s@6", "2s@8"], "2s ticks: \(ticks)")
                try ctx.expect(ticks.filter { $0.hasPrefix("3s") } == ["3s@3", "3s@6", "3s@9"], "3s ticks: \(ticks)")
                let times = ticks.map { Int($0.split(separator: "@")[1])! }
                try ctx.expect(times == times.sorted(), "ticks out of time order: \(ticks)")
            },
            Rule(
                .vt6, "advance-to is inclusive and then sets the time",
                requires: .virtualTime,
                rationale: "RxSwift's `advanceTo` runs what is due exactly at the target; tests rely on it.",
                hint:
                    """
                    run entries with time <= target (not <), then set `now` to the target. A scheduler that leaves \
                    work due exactly at the target for the next drive by design (as Kotlin's `advanceTimeBy` does) \
                    declares `.advanceTarget(.exclusive)`: then only what is due before the target runs, and the next \
                    step runs the rest at the target.
                    """
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let target = try ctx.deadline(.seconds(5), on: scheduler)
                let ran = Recorder<String>()
                for (name, offset) in [("before", -1), ("at", 0), ("after", 1)] {
                    _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                        try scheduler.schedule(at: target.advanced(by: .nanoseconds(offset))) {
                            ran.record("\(name)@\(scheduler.now == target ? "target" : "\(scheduler.now)")")
                        }
                    }
                }
                scheduler.advance(to: target)
                try ctx.expect(scheduler.now == target, "now is \(scheduler.now) after advancing to \(target)")
                let declaration = Declaration.advanceTarget(.exclusive)
                guard ctx.subject.declared.advanceTarget == .exclusive else {
                    try ctx.expect(
                        ran.all.first?.hasPrefix("before") == true, "an action due 1 ns before the target did not run")
                    try ctx.expect(
                        ran.all.count >= 2,
                        """
                        an action due exactly at the target did not run in the advance (a scheduler that leaves it \
                        for the next drive by design declares \(declaration))
                        """
                    )
                    try ctx.expect(ran.all.count == 2, "an action due after the target ran: \(ran.all)")
                    return
                }
                try ctx.expect(
                    ran.all.count == 1 && ran.all[0].hasPrefix("before"),
                    """
                    advancing to the target ran \(ran.all), though the subject declares \(declaration): only the \
                    action due 1 ns before it should run
                    """
                )
                try ctx.expect(scheduler.step(), "after the advance, a step found nothing to run")
                try ctx.expect(
                    ran.all.last == "at@target",
                    """
                    the step after the advance ran \(ran.all.last ?? "nothing"), expected the action due at the \
                    target, at the target (the subject declares \(declaration))
                    """
                )
            },
            Rule(
                .vt7, "`now` during an action equals the action's time",
                requires: .virtualTime,
                rationale:
                    """
                    Test schedulers that reported the advance target instead of the action's time broke time-based \
                    operators.
                    """,
                hint: "set the clock to each entry's time before running it, not to the target of the advance."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let origin = scheduler.now
                let seen = Recorder<Duration>()
                for ms in [3, 1, 2] {
                    _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                        try scheduler.schedule(after: .milliseconds(ms)) {
                            seen.record(origin.duration(to: scheduler.now))
                        }
                    }
                }
                try ctx.attempt("advance") { () throws(SchedulerError) in try scheduler.advance(by: .seconds(1)) }
                try ctx.expect(
                    seen.all == [.milliseconds(1), .milliseconds(2), .milliseconds(3)],
                    "now inside the actions: \(seen.all)")
            },
            Rule(
                .vt8, "actions scheduled during an advance, due by its target, run in it",
                requires: .virtualTime,
                rationale:
                    "Chains of timers (a delay after a delay) must complete within one advance that covers them.",
                hint: "the advance loop re-reads the queue after each action instead of taking a snapshot."
            ) { ctx throws(RuleFailure) in
                let scheduler = try virtualScheduler(ctx)
                let log = Recorder<String>()
                _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                    try scheduler.schedule(after: .seconds(1)) {
                        log.record("first")
                        _ = try? scheduler.schedule(after: .seconds(1)) { log.record("during") }
                        _ = try? scheduler.schedule(after: .seconds(5)) { log.record("too late") }
                    }
                }
                // Nothing is due at the target: the rule holds with either `.advanceTarget`.
                try ctx.attempt("advance") { () throws(SchedulerError) in try scheduler.advance(by: .seconds(3)) }
                try ctx.expect(log.all == ["first", "during"], "ran \(log.all)")
            },
        ] + virtualTimeOrder
}

/// The subject's scheduler as a virtual-time scheduler, or a harness error saying why not.
func virtualScheduler(_ ctx: RuleContext) throws(RuleFailure) -> any VirtualTimeScheduler {
    guard let scheduler = ctx.makeScheduler() as? any VirtualTimeScheduler else {
        throw RuleFailure(
            "the subject claims virtualTime but its scheduler does not conform to VirtualTimeScheduler", kind: .error)
    }
    return scheduler
}
