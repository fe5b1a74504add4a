import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let virtualTimeOrder: [Rule] = [
        Rule(
            .vt9,
            "20,000 actions in batches between advances (random times, one batch latest first) run in (time, order)",
            requires: .virtualTime,
            rationale: "A heap that loses its order under load corrupts long simulations.",
            hint:
                """
                the priority queue compares (time, sequence) consistently, across every structure an entry waits in \
                (a batch merged into a sorted run, a heap for a few); no entry is lost on resize or merge.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = try virtualScheduler(ctx)
            var generator = SplitMix64(seed: 0x5EED)
            // Each action records when it ran and when it was due: a queue that hands entries out
            // in the order they came keeps the clock from going back, so the times it ran at
            // alone would look sorted.
            let log = Recorder<(time: SchedulerTime, due: SchedulerTime, index: Int)>()
            // Batches of every size, each queued after an advance ran some of the last: a large
            // one into an empty queue, one merged with thousands still waiting, a few, a few
            // hundred, and a large one due before most of what waits (the merge ends with the
            // waiting run's tail). A queue that keeps entries in several structures (a sorted run
            // for large batches, a heap for small ones) is read across all of them, with ties
            // between batches (delays are whole milliseconds). The last batch is queued latest
            // first, each action due a millisecond before the one queued before it: a queue that
            // spares a batch that came in order its sort must tell the two orders apart.
            var index = 0
            for (batch, spread) in [(10_000, 500), (3_000, 500), (40, 500), (600, 500), (4_360, 60), (2_000, 0)] {
                for position in 0..<batch {
                    let delay = Duration.milliseconds(
                        spread > 0 ? Int64(generator.next() % UInt64(spread)) : Int64(batch - position))
                    let order = index
                    _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                        let due = try scheduler.now.advanced(by: delay)
                        return try scheduler.schedule(at: due) { log.record((scheduler.now, due, order)) }
                    }
                    index += 1
                }
                try ctx.attempt("advance") { () throws(SchedulerError) in
                    try scheduler.advance(by: .milliseconds(40))
                }
            }
            scheduler.stepAll()
            let all = log.all
            try ctx.expect(all.count == 20_000, "ran \(all.count) of 20000")
            if let early = all.first(where: { $0.time != $0.due }) {
                throw RuleFailure(
                    "action \(early.index) of the order scheduled, due at \(early.due), ran at \(early.time)")
            }
            if let (earlier, later) = zip(all, all.dropFirst()).first(where: {
                !($0.time < $1.time || ($0.time == $1.time && $0.index < $1.index))
            }) {
                throw RuleFailure(
                    """
                    actions ran out of (time, order) order: action \(later.index) of the order scheduled ran at \
                    \(later.time), after action \(earlier.index) at \(earlier.time)
                    """
                )
            }
        },
        Rule(
            .vt10, "time never moves backwards",
            requires: .virtualTime,
            rationale: "A clock that goes back makes durations negative and timers fire twice.",
            hint: "advancing to an earlier time is a no-op; a past deadline runs at the present time."
        ) { ctx throws(RuleFailure) in
            let scheduler = try virtualScheduler(ctx)
            try ctx.attempt("advance") { () throws(SchedulerError) in try scheduler.advance(by: .seconds(10)) }
            let now = scheduler.now
            scheduler.advance(to: .zero)
            try ctx.expect(
                scheduler.now == now, "advancing to an earlier time moved the clock back to \(scheduler.now)")
            let seen = Box<SchedulerTime?>(nil)
            _ = try ctx.attempt("schedule(at: .zero)") { () throws(SchedulerError) in
                try scheduler.schedule(at: .zero) { seen.value = scheduler.now }
            }
            scheduler.stepAll()
            try ctx.expect(
                seen.value.map { $0 >= now } == true,
                "a past deadline ran at \(String(describing: seen.value)), before now \(now)")
        },
        Rule(
            .vt11, "work scheduled during an advance runs at its own time, in time order, seeing that time",
            requires: .virtualTime,
            rationale:
                """
                A delay inside a delay is the heart of every timing test; it must run at the action's time plus its \
                delay, before later work, and read that time.
                """,
            hint:
                """
                delays are added to the time of the running action (not the advance target), and entries added while \
                advancing join the same ordered queue instead of a batch run afterwards.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = try virtualScheduler(ctx)
            let origin = scheduler.now
            let log = Recorder<String>()
            func at(_ seconds: Int64) throws(RuleFailure) -> SchedulerTime {
                try ctx.attempt("origin + \(seconds)s") { () throws(SchedulerError) in
                    try origin.advanced(by: .seconds(seconds))
                }
            }
            @Sendable func note(_ name: String) {
                log.record("\(name)@\(origin.duration(to: scheduler.now).components.seconds)")
            }
            let seven = try at(7)
            _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: seven) { note("planned") }
            }
            let two = try at(2)
            _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: two) {
                    note("first")
                    _ = try? scheduler.schedule(after: .seconds(3)) {
                        note("nested")
                        _ = try? scheduler.schedule(after: .seconds(1)) { note("nested-twice") }
                    }
                }
            }
            scheduler.advance(to: try at(10))
            try ctx.expect(
                log.all == ["first@2", "nested@5", "nested-twice@6", "planned@7"],
                "ran \(log.all), expected [first@2, nested@5, nested-twice@6, planned@7]")
        },
        Rule(
            .vt12,
            "work scheduled for the current instant from inside an advance runs at that instant, before later work",
            requires: .virtualTime,
            rationale:
                """
                An action that schedules more work 'now' (an operator forwarding an event) must see it run at the \
                same virtual time, ahead of anything due later.
                """,
            hint:
                """
                plain `schedule` during an advance is stamped with the running action's time (not the advance target, \
                nor the end of the batch).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = try virtualScheduler(ctx)
            let origin = scheduler.now
            let log = Recorder<String>()
            @Sendable func note(_ name: String) {
                log.record("\(name)@\(origin.duration(to: scheduler.now).components.seconds)")
            }
            let three = try ctx.attempt("origin + 3s") { () throws(SchedulerError) in
                try origin.advanced(by: .seconds(3))
            }
            _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: three) { note("later") }
            }
            _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                try scheduler.schedule(after: .seconds(1)) {
                    note("first")
                    scheduler.schedule { note("now-1") }
                    _ = try? scheduler.schedule(at: scheduler.now) { note("now-2") }
                }
            }
            try ctx.attempt("advance") { () throws(SchedulerError) in try scheduler.advance(by: .seconds(5)) }
            try ctx.expect(
                log.all == ["first@1", "now-1@1", "now-2@1", "later@3"],
                "ran \(log.all), expected [first@1, now-1@1, now-2@1, later@3]")
        },
        Rule(
            .vt13, "a step runs everything due at the earliest instant, and nothing later",
            requires: .virtualTime, excludes: .singleStep,
            rationale:
                """
                Schedulers that step by instants (ReactiveSwift's, SwiftNIO's test loops) promise that one step moves \
                time to the next instant that has work and runs exactly that instant's work.
                """,
            hint:
                """
                a step moves time to the earliest pending deadline, runs every action due then (work they add for \
                that instant included), and stops before the next deadline.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = try virtualScheduler(ctx)
            let origin = scheduler.now
            let log = Recorder<String>()
            for (name, ms) in [("a", 10), ("b", 20), ("a2", 10)] {
                _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                    try scheduler.schedule(after: .milliseconds(ms)) {
                        log.record(name)
                        if name == "a" { scheduler.schedule { log.record("a-now") } }
                    }
                }
            }
            try ctx.expect(scheduler.step(), "step() ran nothing with three actions pending")
            try ctx.expect(log.all == ["a", "a2", "a-now"], "the first step ran \(log.all), expected [a, a2, a-now]")
            try ctx.expect(
                origin.duration(to: scheduler.now) == .milliseconds(10),
                "after the first step now is \(origin.duration(to: scheduler.now)) past the start, expected 10 ms")
            try ctx.expect(scheduler.step(), "the second step ran nothing")
            try ctx.expect(log.all == ["a", "a2", "a-now", "b"], "after the second step: \(log.all)")
            try ctx.expect(!scheduler.step(), "a step on an empty scheduler reported work")
        },
    ]
}
