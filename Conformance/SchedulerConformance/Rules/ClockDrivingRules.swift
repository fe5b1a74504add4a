import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let clockDriving: [Rule] = [
        Rule(
            .clk6,
            "instant arithmetic keeps its laws a century either side of now, and `minimumResolution` is not negative",
            rationale:
                """
                Deadlines far in the future ('never') and far in the past are common; instants stored in 64-bit \
                nanoseconds with wrapping arithmetic turn them into the opposite (SE-0329's laws).
                """,
            hint:
                """
                instants and their `advanced(by:)` and `duration(to:)` use the 128-bit `Duration` (or checked \
                arithmetic), never wrapping 64-bit nanoseconds; `minimumResolution` is zero or more.
                """
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
                """
                Tests of timeouts and retries advance a test clock past several deadlines at once and expect what \
                happens at 1 s to happen before 2 s, at 1 s.
                """,
            hint:
                """
                an advance moves time to each due deadline in turn (earliest first), resumes that sleeper and lets it \
                run before moving on, then moves to the target; sleepers are kept sorted by deadline, not by \
                registration.
                """
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
            """
            sleepers with the same deadline resume in the order they went to sleep, each once, wherever they stand \
            among other sleepers and whichever of them were cancelled
            """,
            requires: .virtualTime,
            rationale:
                """
                Simultaneous timers firing in registration order is what makes virtual-time tests repeatable (the \
                field has shipped test clocks that do not, some only when nothing is due before the ties); cancelling \
                one of them must take out that one, and leave its neighbours in their order.
                """,
            hint:
                """
                sort sleepers by (deadline, sequence number), with a stable sort or a sequence tie-break; a new \
                sleeper goes after every sleeper due no later than it, never before its equals (mind `<=` in a fast \
                path for the front or the back); resume ties FIFO; cancellation removes the sleeper by its identity \
                (not the first entry with its deadline) and keeps the others' order (no swap-with-last removal).
                """
        ) { ctx throws(RuleFailure) in
            let session = ClockSession(ctx)
            // Ties with nothing due before them: the front of a sorted list.
            let alone = session.now + .seconds(1)
            let first = Recorder<Int>()
            let ties = try session.parkedTies(4, until: alone, woke: first, "a tie with nothing due before it")
            try session.advance(by: alone - session.now)
            try session.expectResumed(
                [0, 1, 2, 3], of: ties, at: alone, woke: first, after: "advancing to four ties with nothing before them"
            )
            // Ties in the middle: registered after a later sleeper, around an earlier one.
            let middle = session.now + .seconds(2)
            let deadlines = [middle + .seconds(1), middle, middle - .seconds(1), middle, middle]
            let amid = Recorder<Int>()
            let mixed = try session.parkedSleepers(until: deadlines, woke: amid, "a sleeper around ties")
            try session.advance(by: deadlines[0] - session.now)
            try session.expectResumed(
                [2, 1, 3, 4, 0], of: mixed, at: deadlines, woke: amid,
                after: "advancing past ties registered after a later sleeper and around an earlier one")
            // Out of order and never the first: a clock that removes the first sleeper with the
            // cancelled one's deadline, or fills the hole with its last sleeper, shows.
            let deadline = session.now + .seconds(2)
            let count = 8
            let woke = Recorder<Int>()
            let sleepers = try session.parkedTies(count, until: deadline, woke: woke, "tied sleeper")
            let cancelled = [5, 2, 6]
            try session.cancel(cancelled, of: sleepers, "tied sleeper")
            try ctx.expect(woke.count == 0, "cancelling tied sleepers resumed \(woke.all) before the clock moved")
            try session.advance(by: deadline - session.now)
            let live = (0..<count).filter { !cancelled.contains($0) }
            try session.expectResumed(
                live, of: sleepers, at: deadline, woke: woke,
                after: "advancing to the deadline after cancelling \(cancelled)")
        },
        Rule(
            .clk9,
            """
            a cancelled sleeper is deregistered: `run()` neither waits for it nor moves time to its deadline, nor \
            loses a neighbour sharing it
            """,
            requires: .virtualTime,
            rationale:
                """
                A cancelled sleep left in a test clock's list makes the next advance or run jump time to a deadline \
                nobody waits for, and resumes a finished sleep; one deregistered by its deadline takes a live sleeper \
                sharing it, which then never wakes.
                """,
            hint:
                """
                the cancellation handler removes the sleeper from the clock's list at once, by its identity (a \
                sequence number, not its deadline), not when the cancelled task next runs. A clock with no `run()` \
                passes nil for it in its adapter (never a run made of advances): this rule then judges an advance.
                """
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
            // A clock without run() is judged by an advance to the ties' deadline: no time
            // to check, but a live neighbour deregistered in a cancelled one's place shows.
            guard session.clock.hasRun else {
                try session.advance(by: deadline - session.now)
                try session.expectResumed(
                    [0, 2], of: tied, at: deadline, woke: woke, after: "after an advance to them")
                return
            }
            try session.run()
            try session.expectResumed([0, 2], of: tied, at: deadline, woke: woke, after: "after run()")
            try ctx.expect(
                session.now == deadline,
                """
                run() moved time to \(session.now - start) after the start: the cancelled sleeper's deadline was \
                still registered
                """
            )
        },
        Rule(
            .clk10, "`run()` resumes every sleeper, those that sleep again included, and returns when none is left",
            requires: .virtualTime,
            rationale:
                """
                'Run until quiet' is how a test lets a whole asynchronous flow finish: a run that only wakes the \
                sleepers present when it began leaves the flow half-way; one that never returns hangs the test.
                """,
            hint:
                """
                loop until the sleeper list is empty, re-reading it after each resumed sleeper has run, not over a \
                snapshot taken at the start. A clock with no `run()` passes nil for it in its adapter: this rule then \
                judges one advance over the whole chain.
                """
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
            // A clock without run() must do as much in one advance over the whole chain.
            let driving = session.clock.hasRun ? "run()" : "advance(by: 3 s)"
            if session.clock.hasRun { try session.run() } else { try session.advance(by: .seconds(3)) }
            let chained = try session.outcome(of: chain, "a task sleeping 1 s three times, after \(driving)")
            _ = try session.outcome(of: single, "a sleeper 2.5 s ahead, after \(driving)")
            try ctx.expect(
                chained == .returned(at: start + .seconds(3)),
                """
                the chain ended with \(chained) after \(steps.all.count) of 3 sleeps, expected to return at \
                \(start + .seconds(3))
                """
            )
            try ctx.expect(
                session.now == start + .seconds(3),
                "\(driving) left time at \(session.now - start) after the start, expected 3 s")
        },
        Rule(
            .clk11, "a sleep wakes no later than the calibrated bound after its deadline",
            level: .stochastic,
            excludes: [.virtualTime, .synchronous],
            rationale:
                """
                A sleep that oversleeps by far breaks timeouts and frame pacing; the bound is calibrated on this \
                machine at start-up. Stochastic because no evidence can settle it: the bound is absolute, and when \
                the clock's own timer thread woke the sleeper is invisible to the suite, so an oversleep on a loaded \
                machine cannot be told from a slow clock.
                """,
            hint:
                """
                the sleep is armed on the right clock with a small tolerance, and nothing serialises sleepers behind \
                each other.
                """
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
