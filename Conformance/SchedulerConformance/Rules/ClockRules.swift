import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let clocks: [Rule] =
        [
            Rule(
                .clk1, "`now` never decreases, on one thread or handed between threads",
                rationale:
                    """
                    Elapsed times, deadlines and timeouts are differences of `now`: one step back makes a duration \
                    negative and a deadline that passed come back (SE-0329).
                    """,
                hint:
                    """
                    `now` reads one monotonic source for every thread (not a per-thread or per-core counter, nor a \
                    wall clock), and a manual clock's time is read under the same lock that moves it.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ClockSession(ctx)
                var last = session.now
                for index in 0..<20_000 {
                    let reading = session.now
                    try ctx.expect(reading >= last, "read \(index + 1) of one thread went back by \(last - reading)")
                    last = reading
                }
                // A relay: each reading is handed to the other thread, which must read no earlier.
                // A manual clock is moved meanwhile, by a third thread when it can be driven from one.
                let clock = session.clock
                let rounds = 2_000
                let baton = Box(last)
                let backwards = Recorder<String>()
                let turns = [DispatchSemaphore(value: 1), DispatchSemaphore(value: 0)]
                let stop = Box(false)
                defer { stop.value = true }
                let mover: Thread? =
                    if case .blocking(let advance, _)? = clock.driver {
                        Thread { while !stop.value { advance(.nanoseconds(1)) } }
                    } else { nil }
                mover?.start()
                let stalled = Box(false)
                try ctx.onThreads(2) { side in
                    for _ in 0..<rounds {
                        guard turns[side].wait(timeout: .now() + ctx.timing.mustHappen.dispatchInterval) == .success
                        else {
                            stalled.value = true
                            turns[1 - side].signal()
                            return
                        }
                        let reading = clock.now()
                        let handed = baton.value
                        if reading < handed {
                            backwards.record(
                                "thread \(side + 1) read \(handed - reading) before a reading handed to it")
                        }
                        baton.value = reading
                        turns[1 - side].signal()
                    }
                }
                try ctx.expect(
                    backwards.count == 0,
                    "\(backwards.count) of \(rounds * 2) readings went back: \(backwards.all.first ?? "")")
                try ctx.expect(
                    !stalled.value, "the relay between two threads stalled (a reading of `now` blocked)", kind: .error)
            },
            Rule(
                .clk2, "`sleep(until:)` never returns before its deadline on that clock",
                rationale:
                    """
                    'Until' means at or after: a sleep that returns early makes every timeout, debounce and retry \
                    built on it early too.
                    """,
                hint:
                    """
                    the remaining time is converted without rounding down (to whole milliseconds, say) and on the \
                    clock the deadline belongs to; a manual clock resumes a sleeper only once its time reaches the \
                    deadline, not one tick before, and a deadline at the last nanosecond it can count (2⁶³−1 ns) is \
                    due then, not never.
                    """
                , check: sleepNeverReturnsBeforeItsDeadline),
            Rule(
                .clk3, "`sleep(for: d)` is `sleep(until: now + d)`, measured from when it is called",
                rationale:
                    """
                    Most code sleeps for a duration; one measured from a stale instant (the clock's creation, the \
                    last advance) returns early or oversleeps by the staleness.
                    """,
                hint:
                    "`sleep(for:)` reads `now` at the call, on the same clock, and sleeps until that plus the duration."
            ) { ctx throws(RuleFailure) in
                let session = ClockSession(ctx)
                if session.clock.capabilities.contains(.virtualTime) {
                    // The clock has moved before the sleep, so a duration taken from its origin shows.
                    try session.advance(by: .seconds(7))
                    let start = session.now
                    let sleeper = session.start { clock in try await clock.sleepFor(.seconds(5)) }
                    try session.settle()
                    try ctx.expect(
                        sleeper.outcome == nil,
                        "sleep(for: 5 s) called at \(start) returned at once, with \(sleeper.outcome!)")
                    _ = try session.wakeExactly(sleeper, at: start + .seconds(5), "sleep(for: 5 s) called at \(start)")
                    return
                }
                // The clock has been in use for a while first, so a duration taken from when it
                // was made (or last slept) shows.
                let longest = Duration.milliseconds(25)
                _ = try session.perform("sleep(for: \(longest))") { clock in try await clock.sleepFor(longest) }
                for span in [Duration.milliseconds(3) + .microseconds(950), .milliseconds(12) + .microseconds(500)] {
                    let start = session.now
                    let woke = try session.perform("sleep(for: \(span))") { clock in try await clock.sleepFor(span) }
                    try ctx.expect(woke - start >= span, "sleep(for: \(span)) returned after \(woke - start)")
                }
            },
            Rule(
                .clk4, "a deadline at or before `now` returns without waiting for time to move",
                rationale:
                    """
                    Code computes deadlines that have already passed all the time; a test clock that parks such a \
                    sleep until the next advance hangs the test that never advances again, and one whose sleeps set \
                    its time sends it back to the past deadline.
                    """,
                hint:
                    """
                    compare the deadline with `now` using `<=`, before registering a sleeper; a manual clock must not \
                    wait for its next tick; a clock whose sleeps move its time moves it only forwards. A manual clock \
                    that parks `sleep(until: now)` until its next advance by design declares \
                    `.dueSleep(.parksUntilNextAdvance)`.
                    """
            ) { ctx throws(RuleFailure) in
                let session = ClockSession(ctx)
                if session.clock.capabilities.contains(.virtualTime) {
                    try session.advance(by: .seconds(3))
                    let start = session.now
                    let atNow = session.start { clock in try await clock.sleepUntil(clock.now(), nil) }
                    let past = session.start { clock in try await clock.sleepUntil(clock.now() - .seconds(1), nil) }
                    // Not driven, not even by zero: a due sleep must not wait for that. (Tasks
                    // on the clock's own executor run only when it is driven.)
                    let ownExecutor = session.clock.sleeperExecutor != nil
                    if ownExecutor { try session.settle() } else { try session.waitForTasks() }
                    try ctx.expect(past.outcome != nil, "sleep(until: now - 1 s) waits for the clock to move")
                    if ctx.subject.declared.dueSleep == .parksUntilNextAdvance {
                        // Its settling advance by zero already resumed it, on the clock's executor.
                        if !ownExecutor {
                            try ctx.expect(
                                atNow.outcome == nil,
                                """
                                sleep(until: now) ended with \(atNow.outcome!) before any advance, though the subject \
                                declares \(Declaration.dueSleep(.parksUntilNextAdvance)) (a clock that returns at \
                                once declares nothing)
                                """
                            )
                            try session.advance(by: .zero)
                        }
                        try ctx.expect(
                            atNow.outcome != nil,
                            """
                            sleep(until: now) still sleeps after advance(by: .zero), though the subject declares it \
                            parks only until the next advance
                            """
                        )
                    }
                    try ctx.expect(
                        atNow.outcome != nil,
                        """
                        sleep(until: now) waits for the clock to move (a clock that parks it until its next advance \
                        by design declares \(Declaration.dueSleep(.parksUntilNextAdvance)))
                        """
                    )
                    try ctx.expect(
                        atNow.outcome == .returned(at: start) && past.outcome == .returned(at: start),
                        """
                        due sleeps ended with \(atNow.outcome!) and \(past.outcome!), expected both to return at \
                        \(start)
                        """
                    )
                    return
                }
                // The deadline is a minute past: a sleep that waits for time to move cannot return
                // within the "must happen" bound, which a correct one never nears (a bound of a few
                // lateness would flake on a loaded machine).
                let clock = session.clock
                for (what, back) in [("sleep(until: now)", Duration.zero), ("sleep(until: now - 60 s)", .seconds(60))] {
                    let (before, after) = try ctx.perform(what) { () async throws -> (Duration, Duration) in
                        let before = clock.now()
                        try await clock.sleepUntil(before - back, nil)
                        return (before, clock.now())
                    }
                    // A clock whose sleeps move its time (an immediate clock) must not move it back.
                    try ctx.expect(after >= before, "\(what) moved the clock back by \(before - after)")
                }
            },
            Rule(
                .clk5,
                "cancelling a task throws `CancellationError` from its sleep at once, suspended or about to sleep",
                rationale:
                    """
                    Structured concurrency cancels by waking sleepers: a sleep that ignores cancellation keeps a \
                    cancelled task, and everything waiting for it, alive until its deadline.
                    """,
                hint:
                    """
                    the sleep checks cancellation first (before comparing the deadline with `now`) and installs a \
                    cancellation handler that resumes the suspended sleeper with `CancellationError` \
                    (withTaskCancellationHandler), and a manual clock deregisters it there; a cancel that arrives \
                    while the sleep is still registering must find what it withdraws (the wake-up recorded where the \
                    cancel looks, in the same critical section that checks for it).
                    """,
                // Its racing part pins two threads on the cores (``CallRace``).
                needsIdleCores: true
            ) { ctx throws(RuleFailure) in
                let session = ClockSession(ctx)
                // Already cancelled: the sleep must not even start.
                let early = session.start { clock in
                    withUnsafeCurrentTask { $0?.cancel() }
                    try await clock.sleepUntil(clock.now() + .seconds(3_600), nil)
                }
                try session.settle()
                let first = try session.outcome(of: early, "a sleep in an already cancelled task")
                guard case .cancelled = first else {
                    throw RuleFailure("a sleep in an already cancelled task ended with \(first), not CancellationError")
                }
                // A deadline already passed too: the standard clocks check cancellation before
                // they look at the deadline, so a cancelled loop of sleeps ends there.
                let due = session.start { clock in
                    withUnsafeCurrentTask { $0?.cancel() }
                    try await clock.sleepUntil(clock.now(), nil)
                }
                try session.settle()
                let second = try session.outcome(of: due, "a sleep until now in an already cancelled task")
                guard case .cancelled = second else {
                    throw RuleFailure(
                        "a sleep until now in an already cancelled task ended with \(second), not CancellationError")
                }
                guard !session.clock.capabilities.contains(.synchronous) else { return }
                // Parked: cancellation must wake it, before any deadline and without the clock moving.
                let before = session.now
                let sleeper = try session.parkedSleeper(until: before + .seconds(3_600), "a sleeper an hour ahead")
                sleeper.cancel()
                try session.settle()
                // An hour ahead: only cancellation can end it within the "must happen" bound.
                let virtual = session.clock.capabilities.contains(.virtualTime)
                guard sleeper.finished.wait(virtual ? .zero : ctx.timing.mustHappen), let outcome = sleeper.outcome
                else {
                    throw RuleFailure(
                        """
                        a parked sleeper was cancelled but still sleeps \
                        \(virtual ? "(the clock did not move)" : "after \(ctx.timing.mustHappen)")
                        """
                    )
                }
                guard case .cancelled = outcome else {
                    throw RuleFailure("a cancelled sleeper ended with \(outcome), not CancellationError")
                }
                try cancelRacingTheSleepsStart(ctx)
            },
        ] + clockDriving
}
