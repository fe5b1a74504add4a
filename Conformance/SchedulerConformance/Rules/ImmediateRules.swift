import SchedulerProbes
import Schedulers

/// The longest the caller of IMM-4 may wait for a core, in nanoseconds, for an on-time sleep
/// to count as evidence: a scheduler that wakes earlier than this (plus the action's few
/// instructions) is caught at every such sleep.
private let hidingWait: UInt64 = 250_000

extension RuleCatalogue {
    static let immediate: [Rule] = [
        Rule(
            .imm1, "runs the action synchronously on the caller's thread before `schedule` returns",
            requires: .synchronous,
            rationale:
                "Claiming synchronous execution is a promise that code after `schedule` sees the action's effects.",
            hint: "`schedule` calls the action directly instead of enqueueing it anywhere."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let caller = ThreadProbe.id
            let ranOn = Box<UInt?>(nil)
            scheduler.schedule { ranOn.value = ThreadProbe.id }
            let thread = try ctx.unwrap(ranOn.value, "the action had not run when `schedule` returned")
            try ctx.expect(thread == caller, "the action ran on another thread")
        },
        Rule(
            .imm2, "runs each action exactly once, in call order",
            requires: .synchronous,
            rationale: "A synchronous scheduler is a plain call: nothing may be lost, doubled or reordered.",
            hint: "no buffering or retry around the call of the action."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let order = Recorder<Int>()
            for index in 0..<1_000 { scheduler.schedule { order.record(index) } }
            try ctx.expect(order.all == Array(0..<1_000), "order broken: \(firstMismatch(order.all, Array(0..<1_000)))")
        },
        Rule(
            .imm3, "a nested schedule runs inline, before the outer action continues",
            requires: .synchronous,
            rationale:
                """
                Synchronous means synchronous at every depth; users of an immediate scheduler expect call-stack order.
                """,
            hint:
                """
                nested calls are not deferred to a queue (that is a trampoline, which should claim `trampoline` \
                instead).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let log = Recorder<String>()
            scheduler.schedule {
                log.record("before")
                scheduler.schedule { log.record("nested") }
                log.record("after")
            }
            try ctx.expect(log.all == ["before", "nested", "after"], "order was \(log.all)")
        },
        Rule(
            .imm4, "`schedule(at:)` blocks until the deadline, never runs early",
            requires: [.synchronous, .timers],
            rationale: "An immediate timer sleeps the caller; waking early breaks every timeout built on it.",
            hint:
                """
                the sleep loops until the scheduler's own clock reaches the deadline (spurious wake-ups and \
                interrupted sleeps return early).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            // An early wake-up is hidden when the caller then waits for a core longer than it
            // was early, and the rule cannot tell that wait from a punctual wake-up by the
            // time alone. So each sleep also reads how long the kernel kept the caller off a
            // core during the call: an on-time sleep is evidence only when that wait was too
            // short to hide an early wake-up. Sleeps go on until five are evidence; an early
            // one fails whatever the wait.
            let needed = 5
            let giveUp = RuleContext.referenceNow() + ctx.timing.mustHappen
            var conclusive = 0
            var tries = 0
            while conclusive < needed, RuleContext.referenceNow() < giveUp {
                tries += 1
                let deadline = try ctx.deadline(.milliseconds(5), on: scheduler)
                let ran = Box<(time: SchedulerTime, waited: UInt64?)?>(nil)
                let before = CoreWait.now()
                _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                    try scheduler.schedule(at: deadline) {
                        let time = scheduler.now
                        ran.value = (time, before.flatMap { CoreWait.now()?.since($0) })
                    }
                }
                let (time, waited) = try ctx.unwrap(ran.value, "the action had not run when `schedule(at:)` returned")
                try ctx.expect(time >= deadline, "sleep \(tries) ran \(time.duration(to: deadline)) early")
                // Where the platform does not count the wait, every on-time sleep counts.
                if (waited ?? 0) < hidingWait { conclusive += 1 }
            }
            try ctx.requireExercised(
                conclusive == needed,
                """
                only \(conclusive) of \(tries) sleeps ran with the caller kept off a core for less than \(hidingWait) \
                ns, too little to hide an early wake-up; \(needed) were needed
                """
            )
        },
        Rule(
            .imm5, "repeating is refused with a typed error, and the scheduler keeps working",
            requires: .synchronous, excludes: .repeating,
            rationale:
                """
                A synchronous scheduler cannot repeat without blocking forever; ReactiveCocoa asserts, a Swift \
                library should throw.
                """,
            hint:
                """
                `schedule(at:repeatingEvery:leeway:)` throws `SchedulerError.repeatingUnsupported` instead of \
                trapping or looping.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            do {
                // Accepted: disposed at once, so nothing is left repeating after the rule.
                try scheduler.schedule(at: scheduler.now, repeatingEvery: .seconds(1), leeway: .zero) {}.dispose()
                throw RuleFailure("a repeating request was accepted")
            } catch let error as SchedulerError {
                try ctx.expect(
                    error == .repeatingUnsupported(scheduler: scheduler.name),
                    "threw \(error), expected repeatingUnsupported")
            } catch {
                throw error as! RuleFailure
            }
            let ran = Box(false)
            scheduler.schedule { ran.value = true }
            try ctx.expect(ran.value, "the scheduler stopped working after refusing")
        },
    ]
}
