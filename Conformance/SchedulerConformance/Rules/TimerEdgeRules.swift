import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let timerEdges: [Rule] = [
        Rule(
            .tim7, "a zero or negative interval is refused, one nanosecond is not, and the scheduler keeps working",
            requires: .repeating,
            rationale:
                """
                An interval <= 0 would spin or divide by zero; refusing it with a typed error is the only safe \
                answer. Any positive interval is valid, the smallest too.
                """,
            hint:
                """
                validate with `RepeatSpec` (or the same checks) before creating a timer, in nanoseconds: a check made \
                after rounding to a coarser unit refuses short intervals.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let fastest = ctx.subject.declared.zeroInterval == .asFastAsPossible
            for interval in fastest ? [.seconds(-1)] : [Duration.zero, .seconds(-1)] {
                try expectRefusal(
                    ctx, "interval \(interval)", .invalidInterval(interval),
                    declaring: interval == .zero ? .zeroInterval(.asFastAsPossible) : nil
                ) { () throws(SchedulerError) in
                    try scheduler.schedule(at: scheduler.now, repeatingEvery: interval, leeway: .zero) {}
                }
            }
            if fastest { try ticksAsFastAsPossible(ctx, scheduler) }
            // An hour away and disposed at once: accepted, it never gets to tick.
            let start = try ctx.deadline(.seconds(3_600), on: scheduler)
            let smallest = try ctx.attempt("repeating every nanosecond") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: .nanoseconds(1), leeway: .zero) {}
            }
            smallest.dispose()
            try stillWorks(ctx, scheduler)
        },
        Rule(
            .tim8, "a negative leeway is refused, and the scheduler keeps working",
            requires: .repeating,
            rationale: "A negative leeway has no meaning; passing it to the system can trap.",
            hint: "validate the leeway before creating a timer."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            try expectRefusal(ctx, "leeway -1ms", .invalidLeeway(.milliseconds(-1))) { () throws(SchedulerError) in
                try scheduler.schedule(at: scheduler.now, repeatingEvery: .seconds(1), leeway: .milliseconds(-1)) {}
            }
            try stillWorks(ctx, scheduler)
        },
        Rule(
            .tim9, "an interval or leeway overflowing 64-bit nanoseconds is refused, and the scheduler keeps working",
            requires: .repeating,
            rationale:
                "The field has shipped nanosecond overflows for huge intervals: a trap, or a timer firing constantly.",
            hint: "convert with overflow checks (`checkedNanoseconds()`), refusing with `SchedulerError.overflow`."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let huge = Duration.seconds(Int64.max)
            for (what, interval, leeway) in [("interval", huge, Duration.zero), ("leeway", Duration.seconds(1), huge)] {
                do {
                    let handle = try scheduler.schedule(at: scheduler.now, repeatingEvery: interval, leeway: leeway) {}
                    handle.dispose()
                    throw RuleFailure("an overflowing \(what) was accepted")
                } catch let error as SchedulerError {
                    guard case .overflow = error else {
                        throw RuleFailure("an overflowing \(what) threw \(error), expected overflow")
                    }
                } catch {
                    throw error as! RuleFailure
                }
            }
            try stillWorks(ctx, scheduler)
        },
        Rule(
            .tim10, "a deadline in the far future is accepted and does not fire",
            requires: [.timers, .cancellation], excludes: .synchronous,
            rationale: "'Never' is often written as a distant date; converting it must not overflow into 'now'.",
            hint: "clamp or saturate when converting a far deadline to the timer's units."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let fired = Box(false)
            let handle = try ctx.attempt("schedule(at: .distantFuture)") { () throws(SchedulerError) in
                try scheduler.schedule(at: .distantFuture) { fired.value = true }
            }
            let soon = try ctx.deadline(.milliseconds(20), on: scheduler)
            try ctx.waitPast(soon, on: scheduler)
            handle?.dispose()
            try ctx.expect(!fired.value, "the far-future action fired")
            try stillWorks(ctx, scheduler)
        },
        Rule(
            .tim11, "a huge but valid interval and leeway work",
            requires: .repeating,
            rationale: "A century-long interval is valid; it must fire once at the start and then wait, not overflow.",
            hint: "the nanosecond conversion of intervals uses 64-bit signed arithmetic with overflow checks."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let century = Duration.seconds(100 * 365 * 24 * 3600)
            let ticks = Box(0)
            let first = Signal()
            let start = try ctx.deadline(.milliseconds(1), on: scheduler)
            // A century of leeway is accepted (and disposed at once); the timing part uses none,
            // since a scheduler may legally fire as late as its leeway allows.
            let lenient = try ctx.attempt("repeating with a century of leeway") { () throws(SchedulerError) in
                try scheduler.schedule(at: .distantFuture, repeatingEvery: century, leeway: century) {}
            }
            lenient.dispose()
            let handle = try ctx.attempt("repeating every century") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: century, leeway: .zero) {
                    ticks.update { $0 += 1 }
                    first.fire()
                }
            }
            try ctx.waitFor(first, on: scheduler, "the first tick")
            try ctx.waitPast(try ctx.deadline(.milliseconds(20), on: scheduler), on: scheduler)
            handle.dispose()
            try ctx.expect(ticks.value == 1, "ticked \(ticks.value) times within 20 ms")
        },
        Rule(
            .tim12,
            "repeating ticks do not drift: the schedule is anchored at the start, however long each action runs",
            requires: .repeating, excludes: .virtualTime,
            rationale:
                """
                Tick k is due at start + k × interval; a timer re-armed from each tick's own time, or from the end of \
                its action, drifts further behind every tick, and heartbeats miss their window.
                """,
            hint:
                """
                arm the timer once with a repeating interval (or compute each deadline from the start), not `now + \
                interval` in the handler or after the action returned; leeway is a bound on lateness, not something \
                added to every period. The suite's own zero-leeway timer runs on the same grid, and only lateness it \
                did not also see counts.
                """,
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            // Each action runs 8 ms of a 20 ms period: a re-arm from the action's end drifts
            // by that much every tick.
            try RepeatingGrid(
                interval: .milliseconds(20), leeway: .milliseconds(2), points: 12, actionLength: .milliseconds(8)
            ).judge(ctx)
        },
        Rule(
            .tim13, "a real-time scheduler's `now` keeps pace with a monotonic clock",
            requires: .timers, excludes: .virtualTime,
            rationale:
                """
                Every deadline is `now` plus a delay: a clock that runs fast or slow, or jumps, fires timers early or \
                late while agreeing with itself.
                """,
            hint:
                """
                `now` reads a monotonic clock (uptime, `ContinuousClock`, `DispatchTime`) directly, not the wall \
                clock and not a scaled or cached value.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            // Each reading of `now` is bracketed by two of the suite's clock, so preemption
            // only widens the bracket; the subject's elapsed time must fall inside it.
            func sample() -> (before: ContinuousClock.Instant, now: SchedulerTime, after: ContinuousClock.Instant) {
                let before = RuleContext.referenceNow()
                let now = scheduler.now
                return (before, now, RuleContext.referenceNow())
            }
            let first = sample()
            var previous = first.now
            let end = first.after + .milliseconds(60)
            while RuleContext.referenceNow() < end {
                let now = scheduler.now
                try ctx.expect(now >= previous, "`now` went back by \(now.duration(to: previous))")
                previous = now
            }
            let last = sample()
            let elapsed = first.now.duration(to: last.now)
            let shortest = last.before - first.after
            let longest = last.after - first.before
            // A coarse clock may lag by one tick of its resolution at either reading.
            let resolution = Duration.milliseconds(1)
            try ctx.expect(
                elapsed >= shortest - resolution && elapsed <= longest + resolution,
                """
                `now` advanced \(elapsed) while the suite's monotonic clock advanced between \(shortest) and \(longest)
                """
            )
        },
        Rule(
            .tim14, "a jump of the wall clock neither stalls nor hastens a timer",
            requires: .timers, excludes: .virtualTime,
            rationale:
                """
                Wall-clock timers stall when the system clock moves backwards and fire at once when it moves forwards \
                (NTP, a user changing the time); the field has shipped both.
                """,
            hint: "compute deadlines on a monotonic clock; the wall clock is for display, never for timers.",
            needsWallClockStep: true, check: wallClockJumpsMoveNoTimer),
        Rule(
            .tim15, "a repeating timer's first tick is at its start, not one interval later",
            requires: .repeating,
            rationale:
                """
                `schedule(at: start, repeatingEvery:)` promises a tick at `start`; ReactiveCocoa users poll at once \
                and then every interval.
                """,
            hint: "arm the first fire at the start date itself, and the interval only for the ticks after it."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let interval = Duration.seconds(3_600)
            let start = try ctx.deadline(.milliseconds(2), on: scheduler)
            let firstAt = Box<SchedulerTime?>(nil)
            let first = Signal()
            let handle = try ctx.attempt("repeating every hour") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                    if firstAt.value == nil { firstAt.value = scheduler.now }
                    first.fire()
                }
            }
            defer { handle.dispose() }
            try ctx.waitFor(first, on: scheduler, "the first tick of an hourly timer starting in 2 ms")
            let at = try ctx.unwrap(firstAt.value, "no tick time")
            try ctx.expect(
                start.duration(to: at) < interval / 2, "the first tick came \(start.duration(to: at)) after the start")
        },
        Rule(
            .tim16, "after a stall longer than its period, a repeating timer runs its missed ticks as one run",
            requires: .repeating, excludes: .virtualTime,
            rationale:
                """
                A heartbeat whose handler was held up for three periods must not then fire three times back to back: \
                GCD timer sources and Foundation's `Timer` merge what was missed into one run and go back to the \
                grid. A timer that bursts by design (tokio's default) declares it, and is then held to bursting.
                """,
            hint:
                """
                after a late run, arm the next deadline at the first grid point after now and let one run stand for \
                every point passed (a Dispatch timer source does this itself); do not loop over the missed points. \
                The second tick's action runs for 3.5 intervals; each interval after it may hold at most one run.
                """
        ) { ctx throws(RuleFailure) in try RepeatingMissedTicks().judge(ctx) },
    ]
}

/// Checks that `body` throws exactly `expected`.
/// Checks that `body` throws `expected`; a subject whose acceptance is a choice it could
/// declare instead is told which declaration, `declaring`.
/// A subject that accepts the request gets its timer disposed before the rule fails: one that
/// ticks every zero nanoseconds would otherwise run on, as fast as it can, for the rest of the
/// process (the test process's, when `assertConformance` judged it).
private func expectRefusal(
    _ ctx: RuleContext, _ what: String, _ expected: SchedulerError, declaring: Declaration? = nil,
    _ body: () throws(SchedulerError) -> any Disposable
) throws(RuleFailure) {
    do {
        try body().dispose()
        throw RuleFailure(
            "\(what) was accepted" + (declaring.map { " (a scheduler that accepts it by design declares \($0))" } ?? "")
        )
    } catch let error as SchedulerError {
        try ctx.expect(error == expected, "\(what) threw \(error), expected \(expected)")
    } catch {
        throw error as! RuleFailure
    }
}

/// The declared ``ZeroInterval/asFastAsPossible``: a zero interval is accepted and ticks
/// again and again (in virtual time, at one instant, so it is only accepted and disposed:
/// driving it would never end), and its disposal stops it.
private func ticksAsFastAsPossible(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let ticks = Recorder<Int>(expecting: 3)
    let handle = try ctx.attempt("repeating every zero seconds, declared as fast as possible") {
        () throws(SchedulerError) in
        try scheduler.schedule(at: scheduler.now, repeatingEvery: .zero, leeway: .zero) { ticks.record(0) }
    }
    defer { handle.dispose() }
    guard !ctx.subject.capabilities.contains(.virtualTime) else { return }
    try ctx.waitFor(ticks.complete, on: scheduler, "three ticks of a timer every zero seconds")
}

/// Checks that a plain action still runs after a refusal.
private func stillWorks(_ ctx: RuleContext, _ scheduler: any Scheduler) throws(RuleFailure) {
    let ran = Signal()
    scheduler.schedule { ran.fire() }
    try ctx.waitFor(ran, on: scheduler, "a plain action after the refusal")
}
