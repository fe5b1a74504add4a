import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let timers: [Rule] =
        [
            Rule(
                .tim1, "a delayed action never runs before its deadline, on the scheduler's clock or the suite's",
                requires: .timers,
                rationale:
                    """
                    'After' means at or after: timeouts and debounces are wrong if they fire early, and a clock that \
                    runs fast fires every timer early while agreeing with itself.
                    """,
                hint:
                    """
                    deadlines are converted to the clock the timer uses (monotonic for real time) without rounding \
                    down; `now` reads a monotonic clock at its true rate; virtual time moves to the deadline before \
                    the action runs; `now` read inside an action is the present, not when the action began.
                    """,
                check: delayedActionsNeverRunEarly
            ),
            Rule(
                .tim2, "a delayed action is late by no more than the calibrated bound",
                level: .stochastic,
                requires: .timers, excludes: .virtualTime,
                rationale:
                    """
                    A timer that fires much later than asked breaks timeouts and animations; the bound is calibrated \
                    on this machine at start-up. Stochastic because no evidence can settle it: the bound is absolute, \
                    and when the subject's own timer thread was woken is invisible to the suite, so a late firing on \
                    a loaded machine cannot be told from a late timer (TIM-6 judges lateness against the suite's own \
                    timer instead).
                    """,
                hint:
                    """
                    the timer is armed with a small leeway and on the right clock; nothing else blocks the queue it \
                    fires on.
                    """
            ) { ctx throws(RuleFailure) in
                let scheduler = ctx.makeScheduler()
                let worst = Box(Duration.zero)
                let remaining = Box(10)
                let done = Signal()
                for index in 0..<10 {
                    let deadline = try ctx.deadline(.milliseconds(2 + index), on: scheduler)
                    _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                        try scheduler.schedule(at: deadline) {
                            let late = deadline.duration(to: scheduler.now)
                            worst.update { $0 = max($0, late) }
                            if remaining.update({
                                $0 -= 1
                                return $0
                            }) == 0 {
                                done.fire()
                            }
                        }
                    }
                }
                try ctx.waitFor(done, on: scheduler, "ten delayed actions ran")
                try ctx.expect(
                    worst.value <= ctx.timing.lateness, "up to \(worst.value) late, bound \(ctx.timing.lateness)")
            },
            Rule(
                .tim3, "a deadline in the past runs promptly",
                requires: .timers,
                rationale:
                    """
                    A deadline computed before a slow step may already have passed; it must run, not be dropped or \
                    wait for a wrap-around.
                    """,
                hint: "past deadlines are clamped to now rather than converted to a huge unsigned delay."
            ) { ctx throws(RuleFailure) in
                let scheduler = ctx.makeScheduler()
                let done = Signal()
                let past = try ctx.deadline(.seconds(-1), on: scheduler)
                _ = try ctx.attempt("schedule(at:) in the past") { () throws(SchedulerError) in
                    try scheduler.schedule(at: past) { done.fire() }
                }
                try ctx.waitFor(done, on: scheduler, "the action with a past deadline ran")
            },
            Rule(
                .tim4, "delayed actions on a serial scheduler run in deadline order",
                requires: [.timers, .serial],
                rationale: "Timers scheduled out of order must still fire in time order on one serial scheduler.",
                hint:
                    """
                    timers are kept ordered by deadline (a heap or GCD's own timer list), not in the order they were \
                    added.
                    """
            ) { ctx throws(RuleFailure) in
                let scheduler = ctx.makeScheduler()
                let order = Recorder<Int>()
                let done = Signal()
                // One base time: re-reading `now` per timer would let a preempted caller skew them.
                let base = scheduler.now
                for ms in [30, 10, 20] {
                    _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                        try scheduler.schedule(at: base.advanced(by: .milliseconds(ms))) {
                            order.record(ms)
                            if order.count == 3 { done.fire() }
                        }
                    }
                }
                try ctx.waitFor(done, on: scheduler, "three timers fired")
                try ctx.expect(order.all == [10, 20, 30], "fired in order \(order.all)")
            },
            Rule(
                .tim5, "repeating: first run at the start, then one per interval, none early",
                requires: .repeating,
                rationale: "Polling and heartbeats assume tick k comes no earlier than start + k × interval.",
                hint:
                    """
                    the first fire is the start date (not start + interval); ticks are not re-armed from the \
                    handler's own start time minus drift.
                    """
            ) { ctx throws(RuleFailure) in try RepeatingEarliness().judge(ctx) },
            Rule(
                .tim6, "every point of a repeating timer's grid gets a tick within its leeway",
                requires: .repeating, excludes: .virtualTime,
                rationale:
                    """
                    Leeway lets the system coalesce wake-ups, not stretch the period: tick k is due within the leeway \
                    after start + k × interval, and a timer that is late by a multiple of its leeway misses every \
                    deadline built on it.
                    """,
                hint:
                    """
                    the timer is armed with the leeway asked for, not a multiple of it; each deadline is start + k × \
                    interval, never the last tick plus interval plus leeway; the queue it fires on is not blocked. \
                    The suite's own zero-leeway timer runs on the same grid, and only lateness it did not also see \
                    counts.
                    """,
                needsIdleCores: true
            ) { ctx throws(RuleFailure) in
                // A period stretched by one 8 ms leeway leaves grid point 3 uncovered, and every
                // tick of a timer firing four leeways late misses its point (32 ms: still short of
                // the 40 ms interval, so no earlier tick lands in the window by accident); eight
                // points show either twice over.
                try RepeatingGrid(
                    interval: .milliseconds(40), leeway: .milliseconds(8), points: 8, actionLength: .zero
                )
                .judge(ctx)
            },
        ] + timerEdges
}
