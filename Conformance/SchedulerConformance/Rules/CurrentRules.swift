import Foundation
import Schedulers

extension RuleCatalogue {
    static let current: [Rule] = [
        Rule(
            .current, 1, "the scheduler is current inside its actions",
            requires: .tracksCurrent,
            excludes: .threadConfined,
            rationale: "Operators such as ReactiveCocoa's `subscribeOn` and the subscription scheduler decide where to run by asking for the current scheduler.",
            hint: "actions are wrapped in `CurrentScheduler.run(as: self)`, on every path (fast path, nested, drained)."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let seen = Box<[Bool]>([])
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                for _ in 0..<20 {
                    scheduler.schedule {
                        // Counted, not indexed: on a concurrent scheduler the last one scheduled
                        // need not be the last one to finish.
                        let count = seen.update { $0.append(CurrentScheduler.value === scheduler); return $0.count }
                        if count == 20 { done.fire() }
                    }
                }
                try ctx.waitFor(done, on: scheduler, "twenty actions ran")
            }
            try ctx.expect(seen.value == Array(repeating: true, count: 20), "current was wrong in \(seen.value.filter { !$0 }.count) of \(seen.value.count) actions")
        },
        Rule(
            .current, 2, "the scheduler is current inside delayed actions",
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
            .current, 3, "the scheduler is current inside repeating actions",
            requires: [.tracksCurrent, .repeating],
            rationale: "ReactiveCocoa's repeating timer ran the raw block, so `current` was nil inside it: a known gap that broke nested scheduling.",
            hint: "the timer's event handler runs the action as the current scheduler too."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let seen = Box<[Bool]>([])
            let third = Signal()
            let start = try ctx.deadline(.milliseconds(2), on: scheduler)
            let handle = try ctx.attempt("repeating") { () throws(SchedulerError) in
                try scheduler.schedule(at: start, repeatingEvery: .milliseconds(3), leeway: .zero) {
                    if seen.update({ $0.append(CurrentScheduler.value === scheduler); return $0.count }) == 3 { third.fire() }
                }
            }
            try ctx.waitFor(third, on: scheduler, "three ticks")
            handle.dispose()
            try ctx.expect(seen.value.prefix(3).allSatisfy { $0 }, "current was wrong in repeating ticks: \(seen.value)")
        },
        Rule(
            .current, 4, "the calling thread has no current scheduler again after a synchronous run",
            requires: .tracksCurrent, anyOf: [.synchronous, .trampoline],
            excludes: .threadConfined,
            rationale: "Restoration: a scheduler that leaves itself current makes later code on that thread believe it runs on it.",
            hint: "the previous value is put back (or cleared) in a `defer`, also when the drain ends."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let after = try ctx.onFreshThread { () -> Bool in
                scheduler.schedule { scheduler.schedule {} }
                return CurrentScheduler.value == nil
            }
            try ctx.expect(after, "a current scheduler was left set on the calling thread")
        },
        Rule(
            .current, 5, "an outer current scheduler is restored after a nested synchronous run",
            requires: .tracksCurrent, anyOf: [.synchronous, .trampoline],
            excludes: .threadConfined,
            rationale: "Nesting: scheduler A running work that synchronously runs on B must see A again afterwards.",
            hint: "remember the previous value before setting yourself, and restore that value rather than clearing it."
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
            .current, 6, "hops A → B → A see the right scheduler each time",
            requires: [.tracksCurrent, .asynchronous],
            rationale: "Work hops between schedulers (observeOn); each hop must see its own scheduler, and returning must see A again.",
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
                for _ in 0..<3 { virtualA.stepAll(); virtualB.stepAll() }
            }
            try ctx.waitFor(done, on: a, "the hop back to A ran")
            try ctx.expect(seen.all == ["A", "B", "A"], "saw \(seen.all)")
        },
        Rule(
            .current, 7, "each worker of a concurrent scheduler sees it as current throughout",
            requires: [.tracksCurrent, .concurrent],
            rationale: "On a concurrent queue, one worker finishing must not clear the value another worker set.",
            hint: "the current value lives in thread-local storage, never in a field of the scheduler shared by all workers."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let wrong = Box(0)
            let remaining = Box(400)
            let done = Signal()
            for _ in 0..<400 {
                scheduler.schedule {
                    let before = CurrentScheduler.value === scheduler
                    spin(2_000)
                    let after = CurrentScheduler.value === scheduler
                    if !(before && after) { wrong.update { $0 += 1 } }
                    if remaining.update({ $0 -= 1; return $0 }) == 0 { done.fire() }
                }
            }
            try ctx.waitFor(done, on: scheduler, "400 concurrent actions ran")
            try ctx.expect(wrong.value == 0, "\(wrong.value) of 400 actions saw a wrong current scheduler")
        },
        Rule(
            .current, 8, "the main-thread scheduler runs on the main thread, as current",
            requires: [.mainThread, .tracksCurrent],
            rationale: "UI code must run on the main thread; ReactiveCocoa answers the main-thread scheduler there.",
            hint: "actions go to the main queue (not a queue targeting it from elsewhere), and the main queue is being drained."
        ) { ctx throws(RuleFailure) in
            guard ctx.mainThreadDriven else {
                throw RuleFailure("the main thread is not driven in this process (run from XCTest's main thread or the `conformance` command)", kind: .skipped)
            }
            let scheduler = ctx.makeScheduler()
            let seen = Box<(main: Bool, current: Bool)?>(nil)
            let done = Signal()
            scheduler.schedule {
                seen.value = (Thread.isMainThread, CurrentScheduler.value === scheduler)
                done.fire()
            }
            try ctx.waitFor(done, on: scheduler, "the action ran")
            let observed = try ctx.unwrap(seen.value, "no observation")
            try ctx.expect(observed.main, "the action ran off the main thread")
            try ctx.expect(observed.current, "the scheduler was not current inside its action")
        },
    ]
}
