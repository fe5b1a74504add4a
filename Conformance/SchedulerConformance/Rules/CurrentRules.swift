import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let current: [Rule] = [
        Rule(
            .cur1, "the scheduler is current inside its actions",
            requires: .tracksCurrent,
            excludes: .threadConfined,
            rationale:
                """
                Operators such as ReactiveCocoa's `subscribeOn` and the subscription scheduler decide where to run by \
                asking for the current scheduler.
                """,
            hint:
                """
                actions are wrapped in `CurrentScheduler.run(as: self)`, on every path (fast path, nested, drained \
                from a backlog, a recursion's reruns).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let seen = Box<[Bool]>([])
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                // The first ten are queued while the scheduler is held, so they run from a
                // backlog (a drain loop, a batch) rather than one by one.
                let gate = try ctx.hold(scheduler)
                for index in 0..<20 {
                    if index == 10 { gate.fire() }
                    scheduler.schedule {
                        // Counted, not indexed: on a concurrent scheduler the last one scheduled
                        // need not be the last one to finish.
                        let count = seen.update {
                            $0.append(CurrentScheduler.value === scheduler)
                            return $0.count
                        }
                        if count == 20 { done.fire() }
                    }
                }
                try ctx.waitFor(done, on: scheduler, "twenty actions ran")
            }
            try ctx.expect(
                seen.value == Array(repeating: true, count: 20),
                "current was wrong in \(seen.value.filter { !$0 }.count) of \(seen.value.count) actions")
            try currentThroughEveryDoor(ctx, scheduler)
        },
        Rule(
            .cur2, "the scheduler is current inside delayed actions",
            requires: [.tracksCurrent, .timers],
            excludes: .threadConfined,
            rationale: "Timed operators (delay, timeout) schedule follow-up work on the current scheduler.",
            hint: "the `schedule(at:)` path wraps the action as the plain path does."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let seen = Box<Bool?>(nil)
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                _ = try ctx.attempt("schedule(after:)") { () throws(SchedulerError) in
                    try scheduler.schedule(after: .milliseconds(2)) {
                        seen.value = CurrentScheduler.value === scheduler
                        done.fire()
                    }
                }
                try ctx.waitFor(done, on: scheduler, "the delayed action ran")
            }
            try ctx.expect(seen.value == true, "the delayed action did not see its scheduler as current")
        },
        Rule(
            .cur3, "the scheduler is current inside repeating actions",
            requires: [.tracksCurrent, .repeating],
            rationale:
                """
                ReactiveCocoa's repeating timer ran the raw block, so `current` was nil inside it: a known gap that \
                broke nested scheduling.
                """,
            hint: "the timer's event handler runs the action as the current scheduler too."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let seen = Box<[Bool]>([])
            let third = Signal()
            let start = try ctx.deadline(.milliseconds(2), on: scheduler)
            let handle = try ctx.attempt("repeating") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: .milliseconds(3), leeway: .zero) {
                    if seen.update({
                        $0.append(CurrentScheduler.value === scheduler)
                        return $0.count
                    }) == 3 {
                        third.fire()
                    }
                }
            }
            try ctx.waitFor(third, on: scheduler, "three ticks")
            handle.dispose()
            try ctx.expect(
                seen.value.prefix(3).allSatisfy { $0 }, "current was wrong in repeating ticks: \(seen.value)")
        },
        Rule(
            .cur4, "the calling thread has no current scheduler again after a synchronous run",
            requires: .tracksCurrent, anyOf: [.synchronous, .trampoline],
            excludes: .threadConfined,
            rationale:
                """
                Restoration: a scheduler that leaves itself current makes later code on that thread believe it runs \
                on it.
                """,
            hint: "the previous value is put back (or cleared) in a `defer`, also when the drain ends.",
            guarantee:
                """
                `CurrentScheduler.run(as:)`, the only way to set the current scheduler, always restores the previous \
                value; no scheduler built on this package can leave itself current.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let after = try ctx.onFreshThread { () -> Bool in
                scheduler.schedule { scheduler.schedule {} }
                return CurrentScheduler.value == nil
            }
            try ctx.expect(after, "a current scheduler was left set on the calling thread")
        },
        Rule(
            .cur5, "an outer current scheduler is restored after a nested synchronous run",
            requires: .tracksCurrent, anyOf: [.synchronous, .trampoline],
            excludes: .threadConfined,
            rationale: "Nesting: scheduler A running work that synchronously runs on B must see A again afterwards.",
            hint:
                "remember the previous value before setting yourself, and restore that value rather than clearing it.",
            guarantee:
                """
                `CurrentScheduler.run(as:)` restores the previous value, not nil, so an outer scheduler is always \
                current again; that the nested action sees its own scheduler is what CUR-1 judges.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let outer = ImmediateScheduler.shared
            let seen = try ctx.onFreshThread { () -> (inside: Bool, after: Bool) in
                CurrentScheduler.run(as: outer) {
                    let inside = Box(false)
                    scheduler.schedule { inside.value = CurrentScheduler.value === scheduler }
                    return (inside.value, CurrentScheduler.value === outer)
                }
            }
            try ctx.expect(seen.inside, "the nested action did not see its own scheduler as current")
            try ctx.expect(seen.after, "the outer current scheduler was not restored")
        },
        Rule(
            .cur6, "hops A → B → A see the right scheduler each time",
            requires: [.tracksCurrent, .asynchronous],
            rationale:
                """
                Work hops between schedulers (observeOn); each hop must see its own scheduler, and returning must see \
                A again.
                """,
            hint: "the current value is set per action, not cached per thread or per queue."
        ) { ctx throws(RuleFailure) in
            let a = ctx.makeScheduler()
            let b = ctx.makeScheduler()
            let seen = Recorder<String>()
            let done = Signal()
            a.schedule {
                seen.record(CurrentScheduler.value === a ? "A" : "?")
                b.schedule {
                    seen.record(CurrentScheduler.value === b ? "B" : "?")
                    a.schedule {
                        seen.record(CurrentScheduler.value === a ? "A" : "?")
                        done.fire()
                    }
                }
            }
            if let virtualA = a as? any VirtualTimeScheduler, let virtualB = b as? any VirtualTimeScheduler {
                for _ in 0..<3 {
                    virtualA.stepAll()
                    virtualB.stepAll()
                }
            }
            try ctx.waitFor(done, on: a, "the hop back to A ran")
            try ctx.expect(seen.all == ["A", "B", "A"], "saw \(seen.all)")
        },
        Rule(
            .cur7, "each worker of a concurrent scheduler sees it as current, also while others run",
            requires: [.tracksCurrent, .concurrent],
            rationale:
                """
                On a concurrent queue, one worker finishing must not clear the value another worker set, and work \
                that spills onto a second worker must see its scheduler too.
                """,
            hint:
                """
                the current value lives in thread-local storage and is set around every action on every worker (not \
                only on the first worker, or the fast path).
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let wrong = Recorder<String>()
            let overlapped = Box(0)
            // Pairs that meet: the first of a pair waits (bounded) until its partner has run
            // from start to end, and only then checks again; so work provably runs on a second
            // worker while the first is inside, and one finishing beside another is seen.
            let pairs = 40
            let done = Recorder<Int>(expecting: pairs * 2)
            for pair in 0..<pairs {
                let partnerFinished = Signal()
                scheduler.schedule {
                    let before = CurrentScheduler.value === scheduler
                    let met = partnerFinished.wait(ctx.timing.quietWindow)
                    if met { overlapped.update { $0 += 1 } }
                    if !(before && CurrentScheduler.value === scheduler) {
                        wrong.record(
                            """
                            pair \(pair): the waiting \
                            worker\(before ? " lost it when its partner finished" : " never saw it")
                            """
                        )
                    }
                    done.record(pair)
                }
                scheduler.schedule {
                    if CurrentScheduler.value !== scheduler {
                        wrong.record("pair \(pair): the second worker did not see it")
                    }
                    partnerFinished.fire()
                    done.record(pair)
                }
            }
            try ctx.waitFor(done.complete, on: scheduler, "\(pairs * 2) concurrent actions ran")
            try ctx.expect(
                wrong.count == 0,
                "wrong current scheduler in \(wrong.count) actions: \(wrong.all.prefix(3).joined(separator: "; "))")
            try ctx.requireExercised(
                overlapped.value > 0,
                "no two actions ever ran at once, so a worker's current scheduler was never seen beside another's")
        },
        Rule(
            .cur8, "the main-thread scheduler runs on the main thread, as current",
            requires: [.mainThread, .tracksCurrent],
            rationale: "UI code must run on the main thread; ReactiveCocoa answers the main-thread scheduler there.",
            hint:
                """
                actions go to the main queue (not a queue targeting it from elsewhere), and the main queue is being \
                drained; so do delayed actions, repeating ticks, a recursion's runs and work scheduled from inside an \
                action.
                """
        ) { ctx throws(RuleFailure) in
            guard ctx.mainThreadDriven else {
                throw RuleFailure(
                    """
                    the main thread is not driven in this process (run from XCTest's main thread or the `conformance` \
                    command)
                    """,
                    kind: .skipped)
            }
            try mainThroughEveryDoor(ctx, ctx.makeScheduler())
        },
    ]
}
