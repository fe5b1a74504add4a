import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let ordering: [Rule] = [
        Rule(
            .ord1, "actions from one producer run in FIFO order, queued together or one by one",
            requires: .serial,
            rationale:
                """
                A serial scheduler is a queue: operators that schedule events one by one rely on them arriving in order.
                """,
            hint:
                """
                the queue is really FIFO (not a stack or a priority heap without a sequence tie-break); no action is \
                run inline by `schedule`, and none is set aside for later.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let count = 1_000
            let order = Recorder<Int>(expecting: count + 1)
            // The first half is queued while the scheduler is held, so all of it is pending
            // at once (a stack or an unstable heap shows only then); the second half goes
            // in while the scheduler runs, so a fast path that overtakes the queue shows too.
            let gate = try ctx.hold(scheduler)
            for index in 0..<count / 2 { scheduler.schedule { order.record(index) } }
            gate.fire()
            for index in count / 2..<count { scheduler.schedule { order.record(index) } }
            scheduler.schedule { order.record(sentinel) }
            _ = ctx.waitQuietly(for: order.complete, on: scheduler)
            try ctx.expectSequence(order.all, Array(0..<count))
        },
        Rule(
            .ord2, "never two actions at once, even while one is held up",
            requires: .serial,
            excludes: .threadConfined,
            rationale:
                "Code on a serial scheduler needs no locks of its own; one overlap is a data race in every user.",
            hint:
                """
                the private queue is serial even when its target is concurrent; `schedule` from several threads does \
                not start workers in parallel, nor hand work to another queue while the current action is slow; a \
                recursion's run asked for after its run returned goes through the same queue.
                """,
            needsIdleCores: true, check: actionsNeverOverlap),
        Rule(
            .ord3, "per-producer FIFO and exactly-once with many producer threads",
            requires: .serial,
            excludes: .threadConfined,
            rationale:
                "With several producers, each one's actions must keep their order and none may be lost or doubled.",
            hint:
                """
                the enqueue path is thread-safe (a lock or an atomic queue), and no action is dropped when two \
                threads enqueue at once.
                """,
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            // The fault shows only when calls collide, and a loaded machine can have producers
            // take turns, their few overlaps being preemptions at a wake-up outside any lock. So
            // runs are repeated, up to five, until 250 overlaps were seen in all; with fewer than
            // 20 nothing collided and the rule cannot judge.
            var overlaps = 0
            for _ in 0..<5 where overlaps < 250 {
                overlaps += try manyProducersKeepTheirOrder(ctx)
            }
            try ctx.requireExercised(
                overlaps >= 20, "in five runs only \(overlaps) `schedule` calls overlapped another producer's")
        },
        Rule(
            .ord4, "an action scheduled from inside an action does not run re-entrantly",
            excludes: [.synchronous, .subscription, .threadConfined],
            rationale:
                """
                Nested work must not run inside the `schedule` call of the action that asked for it; that breaks the \
                outer action's invariants and grows the stack.
                """,
            hint:
                """
                `schedule` called from one of the scheduler's own actions enqueues instead of calling the action; a \
                trampoline defers it until the outer action returns.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let outerThread = Box<UInt?>(nil)
            let reentered = Box(false)
            let done = Signal()
            try ctx.onFreshThread { () throws(RuleFailure) in
                scheduler.schedule {
                    outerThread.value = ThreadProbe.id
                    scheduler.schedule {
                        if outerThread.value == ThreadProbe.id { reentered.value = true }
                        done.fire()
                    }
                    outerThread.value = nil
                }
                try ctx.waitFor(done, on: scheduler, "the nested action ran")
            }
            try ctx.expect(!reentered.value, "the nested action ran inside the outer action's `schedule` call")
        },
        Rule(
            .ord5,
            "an asynchronous scheduler never runs an action inside the call that scheduled it, at any entry point",
            requires: .asynchronous,
            rationale:
                """
                Callers set up state after `schedule` returns (storing the handle, say) that the action relies on; an \
                inline run sees it missing. A deadline that has come, a repeating timer whose start has passed and a \
                recursion's first run are scheduled work too.
                """,
            hint:
                """
                no entry point calls the action directly: not `schedule`, not `schedule(at:)` with a past, present or \
                near deadline, not a repeating timer's first tick, not `scheduleRecursive`'s first run; not from the \
                scheduler's own thread, nor when the queue is empty. A main-thread scheduler that runs `schedule` \
                inline on the main thread when nothing of its own is queued, by design (RxSwift's `MainScheduler`), \
                declares `.mainThreadSchedule(.inlineWhenIdle)`; it must still queue behind pending work.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let inline = Box(0)
            let last = Signal()
            // The flag is per caller thread: an action seeing it set on its own thread is
            // running inside that thread's `schedule` call.
            let inside = Box<UInt?>(nil)
            @Sendable func scheduleChecked(_ then: @escaping @Sendable () -> Void = {}) {
                inside.value = ThreadProbe.id
                scheduler.schedule {
                    if inside.value == ThreadProbe.id { inline.update { $0 += 1 } }
                    then()
                }
                inside.value = nil
            }
            for index in 0..<200 {
                scheduleChecked { if index == 199 { last.fire() } }
                // Also from inside one of the scheduler's own actions.
                if index == 100 { scheduler.schedule { scheduleChecked() } }
            }
            try ctx.waitFor(last, on: scheduler, "the last action ran")
            try ctx.settle(scheduler)
            try ctx.expect(inline.value == 0, "\(inline.value) actions ran inside their `schedule` call")
            try everyEntryPointIsAsynchronous(ctx)
            try mainThreadScheduleKeepsItsChoice(ctx)
        },
        Rule(
            .ord6, "an action scheduled after another on a different thread runs after it",
            requires: .serial,
            excludes: .threadConfined,
            rationale:
                """
                Serial order is the order of the `schedule` calls, whichever threads make them: an event handed from \
                one thread to another must not overtake the one before it.
                """,
            hint:
                """
                one queue for every caller, not a lane per thread drained in turn; no per-thread batching that holds \
                work back.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            var generator = SplitMix64(seed: 0x0D6)
            let steps = 60
            // Which of three threads makes each `schedule` call; a baton passed between them
            // makes every call happen after the one before it.
            let owners = (0..<steps).map { _ in Int(generator.next() % 3) }
            let batons = (0..<3).map { _ in DispatchSemaphore(value: 0) }
            let order = Recorder<Int>(expecting: steps + 1)
            let gate = try ctx.hold(scheduler)
            batons[owners[0]].signal()
            try ctx.onThreads(3) { me in
                for (step, owner) in owners.enumerated() where owner == me {
                    batons[me].wait()
                    scheduler.schedule { order.record(step) }
                    if step + 1 < steps { batons[owners[step + 1]].signal() }
                }
            }
            gate.fire()
            scheduler.schedule { order.record(sentinel) }
            _ = ctx.waitQuietly(for: order.complete, on: scheduler)
            try ctx.expectSequence(order.all, Array(0..<steps))
        },
    ]
}

/// The value a rule records for its sentinel action, scheduled after the work it judges.
let sentinel = -1

extension RuleContext {
    /// Fails the rule unless `observed` is `expected` followed by the ``sentinel``, naming
    /// precisely what went wrong: actions lost, run twice, run after the sentinel that was
    /// scheduled after them (reordered, not lost), or out of order.
    func expectSequence(_ observed: [Int], _ expected: [Int], _ whose: String = "") throws(RuleFailure) {
        let prefix = whose.isEmpty ? "" : whose + ": "
        let actions = observed.filter { $0 != sentinel }
        var seen = Set<Int>()
        let doubled = actions.filter { !seen.insert($0).inserted }
        try expect(
            doubled.isEmpty, "\(prefix)\(doubled.count) actions ran more than once (first: \(doubled.first ?? 0))")
        let missing = expected.filter { !seen.contains($0) }
        try expect(
            missing.isEmpty,
            "\(prefix)\(missing.count) of \(expected.count) actions never ran (lost), first \(missing.first ?? 0)")
        if let mark = observed.firstIndex(of: sentinel), mark < observed.count - 1 {
            let late = observed[(mark + 1)...]
            throw RuleFailure(
                """
                \(prefix)reordered, not lost: \(late.count) actions ran after a sentinel scheduled after them (first: \
                \(late.first!))
                """
            )
        }
        try expect(actions == expected, "\(prefix)order broken: \(firstMismatch(actions, expected))")
    }
}

/// The first index at which two arrays differ, for failure messages.
func firstMismatch<T: Equatable>(_ observed: [T], _ expected: [T]) -> String {
    for (index, (a, b)) in zip(observed, expected).enumerated() where a != b {
        return "index \(index): got \(a), expected \(b)"
    }
    return "lengths \(observed.count) vs \(expected.count)"
}

/// One run of ORD-3: checks every producer's order, and returns how many `schedule` calls
/// began while another producer's was in progress.
private func manyProducersKeepTheirOrder(_ ctx: RuleContext) throws(RuleFailure) -> Int {
    let scheduler = ctx.makeScheduler()
    let producers = ctx.producerCount
    let perProducer = 4_000
    let order = Recorder<Int>(expecting: producers * perProducer + 1)
    let calls = OverlapMeter()
    let gate = try ctx.hold(scheduler)
    // Four rounds of 1,000, the producers meeting between rounds, so they call `schedule`
    // at the same moment (not one after another as threads start). A round lasts a few
    // hundred microseconds even on a fast scheduler, longer than the producers' wake-ups
    // are spread over and long enough for two cores to run two producers at once; the
    // producers are spread over the cores, since a loaded machine may otherwise run them
    // all on one, where calls of a fast scheduler never overlap.
    let round = 1_000
    let rounds = (0..<(perProducer / round)).map { _ in DispatchGroup() }
    for barrier in rounds { for _ in 0..<producers { barrier.enter() } }
    try ctx.onThreads(producers, spread: true) { producer in
        for index in 0..<perProducer {
            if index % round == 0 {
                rounds[index / round].leave()
                _ = rounds[index / round].wait(timeout: .now() + 1)
            }
            calls.enter()
            scheduler.schedule { order.record(producer * 1_000_000 + index) }
            calls.leave()
            // Half of the work is queued while held, half while the scheduler runs.
            if producer == 0 && index == perProducer / 2 { gate.fire() }
        }
    }
    gate.fire()
    scheduler.schedule { order.record(sentinel) }
    _ = ctx.waitQuietly(for: order.complete, on: scheduler)
    let all = order.all
    for producer in 0..<producers {
        let mine = all.filter { $0 == sentinel || $0 / 1_000_000 == producer }.map {
            $0 == sentinel ? $0 : $0 % 1_000_000
        }
        try ctx.expectSequence(mine, Array(0..<perProducer), "producer \(producer)")
    }
    return calls.overlaps
}
