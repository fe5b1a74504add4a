import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let clocks: [Rule] = [
        Rule(
            .clk1, "`now` never decreases, on one thread or handed between threads",
            rationale:
                "Elapsed times, deadlines and timeouts are differences of `now`: one step back makes a duration negative and a deadline that passed come back (SE-0329).",
            hint:
                "`now` reads one monotonic source for every thread (not a per-thread or per-core counter, nor a wall clock), and a manual clock's time is read under the same lock that moves it."
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
                    guard turns[side].wait(timeout: .now() + ctx.timing.mustHappen.dispatchInterval) == .success else {
                        stalled.value = true
                        turns[1 - side].signal()
                        return
                    }
                    let reading = clock.now()
                    let handed = baton.value
                    if reading < handed {
                        backwards.record("thread \(side + 1) read \(handed - reading) before a reading handed to it")
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
                "'Until' means at or after: a sleep that returns early makes every timeout, debounce and retry built on it early too.",
            hint:
                "the remaining time is converted without rounding down (to whole milliseconds, say) and on the clock the deadline belongs to; a manual clock resumes a sleeper only once its time reaches the deadline, not one tick before."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            guard session.clock.capabilities.contains(.virtualTime) else {
                // Deadlines just short of whole milliseconds: a sleep that rounds down shows.
                for index in 0..<5 {
                    let span = Duration.milliseconds(1 + index) + .microseconds(950)
                    _ = try session.perform("sleep(until: now + \(span))") { clock in
                        let deadline = clock.now() + span
                        try await clock.sleepUntil(deadline, nil)
                        let woke = clock.now()
                        if woke < deadline { throw EarlyWake(early: deadline - woke) }
                    }
                }
                return
            }
            let deadline = session.now + .seconds(10)
            let sleeper = try session.parkedSleeper(until: deadline, "a sleeper 10 s ahead")
            let outcome = try session.wakeExactly(sleeper, at: deadline, "a sleeper 10 s ahead")
            guard case .returned(let woke) = outcome else { throw RuleFailure("the sleeper ended with \(outcome)") }
            try ctx.expect(woke >= deadline, "the sleeper saw \(woke), before its deadline \(deadline)")
            // A deadline between two nanoseconds: a clock that rounds it down wakes early.
            let between = session.now + .seconds(1) + .nanoseconds(1) / 2
            let fractional = try session.parkedSleeper(
                until: between, "a sleeper half a nanosecond past a whole second")
            try session.advance(by: .seconds(1))
            try ctx.expect(
                fractional.outcome == nil, "a sleeper until \(between) resumed at \(session.now), before its deadline")
        },
        Rule(
            .clk3, "`sleep(for: d)` is `sleep(until: now + d)`, measured from when it is called",
            rationale:
                "Most code sleeps for a duration; one measured from a stale instant (the clock's creation, the last advance) returns early or oversleeps by the staleness.",
            hint: "`sleep(for:)` reads `now` at the call, on the same clock, and sleeps until that plus the duration."
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
                "Code computes deadlines that have already passed all the time; a test clock that parks such a sleep until the next advance hangs the test that never advances again, and one whose sleeps set its time sends it back to the past deadline.",
            hint:
                "compare the deadline with `now` using `<=`, before registering a sleeper; a manual clock must not wait for its next tick; a clock whose sleeps move its time moves it only forwards."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            if session.clock.capabilities.contains(.virtualTime) {
                try session.advance(by: .seconds(3))
                let start = session.now
                let atNow = session.start { clock in try await clock.sleepUntil(clock.now(), nil) }
                let past = session.start { clock in try await clock.sleepUntil(clock.now() - .seconds(1), nil) }
                try session.settle()
                try ctx.expect(atNow.outcome != nil, "sleep(until: now) waits for the clock to move")
                try ctx.expect(past.outcome != nil, "sleep(until: now - 1 s) waits for the clock to move")
                try ctx.expect(
                    atNow.outcome == .returned(at: start) && past.outcome == .returned(at: start),
                    "due sleeps ended with \(atNow.outcome!) and \(past.outcome!), expected both to return at \(start)")
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
            .clk5, "cancelling a task throws `CancellationError` from its sleep at once, suspended or about to sleep",
            rationale:
                "Structured concurrency cancels by waking sleepers: a sleep that ignores cancellation keeps a cancelled task, and everything waiting for it, alive until its deadline.",
            hint:
                "the sleep checks cancellation first and installs a cancellation handler that resumes the suspended sleeper with `CancellationError` (withTaskCancellationHandler), and a manual clock deregisters it there."
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
            guard !session.clock.capabilities.contains(.synchronous) else { return }
            // Parked: cancellation must wake it, before any deadline and without the clock moving.
            let before = session.now
            let sleeper = try session.parkedSleeper(until: before + .seconds(3_600), "a sleeper an hour ahead")
            sleeper.cancel()
            try session.settle()
            // An hour ahead: only cancellation can end it within the "must happen" bound.
            let virtual = session.clock.capabilities.contains(.virtualTime)
            guard sleeper.finished.wait(virtual ? .zero : ctx.timing.mustHappen), let outcome = sleeper.outcome else {
                throw RuleFailure(
                    "a parked sleeper was cancelled but still sleeps \(virtual ? "(the clock did not move)" : "after \(ctx.timing.mustHappen)")"
                )
            }
            guard case .cancelled = outcome else {
                throw RuleFailure("a cancelled sleeper ended with \(outcome), not CancellationError")
            }
        },
        Rule(
            .clk6,
            "instant arithmetic keeps its laws a century either side of now, and `minimumResolution` is not negative",
            rationale:
                "Deadlines far in the future ('never') and far in the past are common; instants stored in 64-bit nanoseconds with wrapping arithmetic turn them into the opposite (SE-0329's laws).",
            hint:
                "instants and their `advanced(by:)` and `duration(to:)` use the 128-bit `Duration` (or checked arithmetic), never wrapping 64-bit nanoseconds; `minimumResolution` is zero or more."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            let resolution = session.clock.minimumResolution()
            try ctx.expect(resolution >= .zero, "minimumResolution is \(resolution)")
            let broken = session.clock.lawViolations(session.now)
            try ctx.expect(broken.isEmpty, "\(broken.count) laws broken: \(broken.prefix(3).joined(separator: "; "))")
        },
        Rule(
            .clk7, "advancing resumes due sleepers in deadline order, each seeing `now` equal to its deadline",
            requires: .virtualTime,
            rationale:
                "Tests of timeouts and retries advance a test clock past several deadlines at once and expect what happens at 1 s to happen before 2 s, at 1 s.",
            hint:
                "an advance moves time to each due deadline in turn (earliest first), resumes that sleeper and lets it run before moving on, then moves to the target; sleepers are kept sorted by deadline, not by registration."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            let start = session.now
            let seconds = [3, 1, 4, 2, 5]
            let woke = Recorder<(Int, Duration)>(expecting: seconds.count)
            // Registered out of deadline order, each parked before the next.
            for second in seconds {
                let deadline = start + .seconds(second)
                _ = session.start { clock in
                    try await clock.sleepUntil(deadline, nil)
                    woke.record((second, clock.now() - start))
                }
                try session.settle()
            }
            try session.advance(by: .seconds(10))
            guard woke.complete.wait(ctx.timing.mustHappen) else {
                throw RuleFailure(
                    "\(woke.count) of \(seconds.count) sleepers resumed after advancing past every deadline")
            }
            let order = woke.all.map(\.0)
            try ctx.expect(
                order == seconds.sorted(), "resumed in the order \(order.map { "\($0) s" }), expected deadline order")
            let wrong = woke.all.filter { $0.1 != .seconds($0.0) }
            try ctx.expect(wrong.isEmpty, "the sleeper for \(wrong.first.map { "\($0.0) s saw now = \($0.1)" } ?? "")")
        },
        Rule(
            .clk8,
            "sleepers with the same deadline resume in the order they went to sleep, each once, whichever of them were cancelled",
            requires: .virtualTime,
            rationale:
                "Simultaneous timers firing in registration order is what makes virtual-time tests repeatable (the field has shipped test clocks that do not); cancelling one of them must take out that one, and leave its neighbours in their order.",
            hint:
                "sort sleepers by (deadline, sequence number), with a stable sort or a sequence tie-break; resume ties FIFO; cancellation removes the sleeper by its identity (not the first entry with its deadline) and keeps the others' order (no swap-with-last removal)."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            let deadline = session.now + .seconds(2)
            let count = 8
            let woke = Recorder<Int>()
            let sleepers = try session.parkedTies(count, until: deadline, woke: woke, "tied sleeper")
            // Out of order and never the first: a clock that removes the first sleeper with the
            // cancelled one's deadline, or fills the hole with its last sleeper, shows.
            let cancelled = [5, 2, 6]
            try session.cancel(cancelled, of: sleepers, "tied sleeper")
            try ctx.expect(woke.count == 0, "cancelling tied sleepers resumed \(woke.all) before the clock moved")
            try session.advance(by: .seconds(2))
            let live = (0..<count).filter { !cancelled.contains($0) }
            try session.expectResumed(
                live, of: sleepers, at: deadline, woke: woke,
                after: "advancing to the deadline after cancelling \(cancelled)")
        },
        Rule(
            .clk9,
            "a cancelled sleeper is deregistered: `run()` neither waits for it nor moves time to its deadline, nor loses a neighbour sharing it",
            requires: .virtualTime,
            rationale:
                "A cancelled sleep left in a test clock's list makes the next advance or run jump time to a deadline nobody waits for, and resumes a finished sleep; one deregistered by its deadline takes a live sleeper sharing it, which then never wakes.",
            hint:
                "the cancellation handler removes the sleeper from the clock's list at once, by its identity (a sequence number, not its deadline), not when the cancelled task next runs."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            let start = session.now
            let abandoned = try session.parkedSleeper(until: start + .seconds(60), "a sleeper a minute ahead")
            abandoned.cancel()
            try session.settle()
            let cancelled = try session.outcome(of: abandoned, "the cancelled sleeper")
            guard case .cancelled = cancelled else {
                throw RuleFailure("the cancelled sleeper ended with \(cancelled)")
            }
            // Ties a second ahead, two of them cancelled (the last one too, so a clock that
            // removes its newest sleeper with that deadline is right only once).
            let deadline = start + .seconds(1)
            let woke = Recorder<Int>()
            let tied = try session.parkedTies(5, until: deadline, woke: woke, "a sleeper a second ahead")
            try session.cancel([3, 1, 4], of: tied, "a sleeper a second ahead")
            try session.run()
            try session.expectResumed([0, 2], of: tied, at: deadline, woke: woke, after: "after run()")
            try ctx.expect(
                session.now == deadline,
                "run() moved time to \(session.now - start) after the start: the cancelled sleeper's deadline was still registered"
            )
        },
        Rule(
            .clk10, "`run()` resumes every sleeper, those that sleep again included, and returns when none is left",
            requires: .virtualTime,
            rationale:
                "'Run until quiet' is how a test lets a whole asynchronous flow finish: a run that only wakes the sleepers present when it began leaves the flow half-way; one that never returns hangs the test.",
            hint:
                "loop until the sleeper list is empty, re-reading it after each resumed sleeper has run, not over a snapshot taken at the start."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            let start = session.now
            let steps = Recorder<Int>()
            let chain = session.start { clock in
                for step in 1...3 {
                    try await clock.sleepFor(.seconds(1))
                    steps.record(step)
                }
            }
            let single = try session.parkedSleeper(until: start + .milliseconds(2_500), "a sleeper 2.5 s ahead")
            try session.settle()
            try session.run()
            let chained = try session.outcome(of: chain, "a task sleeping 1 s three times, after run()")
            _ = try session.outcome(of: single, "a sleeper 2.5 s ahead, after run()")
            try ctx.expect(
                chained == .returned(at: start + .seconds(3)),
                "the chain ended with \(chained) after \(steps.all.count) of 3 sleeps, expected to return at \(start + .seconds(3))"
            )
            try ctx.expect(
                session.now == start + .seconds(3),
                "run() left time at \(session.now - start) after the start, expected 3 s")
        },
        Rule(
            .clk11, "a sleep wakes no later than the calibrated bound after its deadline",
            level: .stochastic,
            excludes: [.virtualTime, .synchronous],
            rationale:
                "A sleep that oversleeps by far breaks timeouts and frame pacing; the bound is calibrated on this machine at start-up. Stochastic because no evidence can settle it: the bound is absolute, and when the clock's own timer thread woke the sleeper is invisible to the suite, so an oversleep on a loaded machine cannot be told from a slow clock.",
            hint:
                "the sleep is armed on the right clock with a small tolerance, and nothing serialises sleepers behind each other."
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            var worst = Duration.zero
            for index in 0..<5 {
                let span = Duration.milliseconds(2 + index)
                let start = session.now
                let woke = try session.perform("sleep(until: now + \(span))") { clock in
                    try await clock.sleepUntil(start + span, nil)
                }
                worst = max(worst, woke - (start + span))
            }
            try ctx.expect(worst <= ctx.timing.lateness, "up to \(worst) late, bound \(ctx.timing.lateness)")
        },
    ]
}

/// A sleep returned before its deadline, by `early`.
struct EarlyWake: Error, CustomStringConvertible {
    let early: Duration
    var description: String { "returned \(early) before its deadline" }
}
