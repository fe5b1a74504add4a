import Dispatch
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let trampoline: [Rule] = [
        Rule(
            .trm1, "the first action runs inline, nested ones FIFO after it, several queued at once",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale:
                """
                RxSwift's classic nested example must print 1, 2, 3, 4, 5: nested work runs after the outer action \
                returns, in order, however many are queued, a nested recursion's first run included.
                """,
            hint:
                """
                an idle thread runs the action at once, then drains a per-thread FIFO queue (not a stack); a busy \
                thread only enqueues, at the back.
                """
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let order = try ctx.onFreshThread { () -> [String] in
                let order = Recorder<String>()
                scheduler.schedule {
                    order.record("1")
                    scheduler.schedule {
                        order.record("3")
                        scheduler.schedule { order.record("5") }
                        // A recursion started by a nested action queues like any other.
                        scheduler.scheduleRecursive { _ in order.record("6") }
                        order.record("4")
                    }
                    order.record("2")
                }
                // Then three queued at once, each queueing more: breadth first, in order.
                scheduler.schedule {
                    for name in ["a", "b", "c"] {
                        scheduler.schedule {
                            order.record(name)
                            scheduler.schedule { order.record(name + "1") }
                            scheduler.schedule { order.record(name + "2") }
                        }
                    }
                    order.record("outer")
                }
                return order.all
            }
            let expected = ["1", "2", "3", "4", "5", "6", "outer", "a", "b", "c", "a1", "a2", "b1", "b2", "c1", "c2"]
            try ctx.expect(order == expected, "order was \(order), expected \(expected)")
        },
        Rule(
            .trm2, "disposing a queued nested action skips it",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale: "Work queued on the trampoline must be cancellable until it starts.",
            hint: "nested `schedule` returns a live handle, and the drain loop checks it before running each entry."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let log = try ctx.onFreshThread { () throws(RuleFailure) -> [String] in
                let log = Recorder<String>()
                let missingHandle = Box(false)
                scheduler.schedule {
                    let skipped = scheduler.schedule { log.record("disposed") }
                    scheduler.schedule { log.record("kept") }
                    if let skipped { skipped.dispose() } else { missingHandle.value = true }
                }
                try ctx.expect(!missingHandle.value, "a nested `schedule` returned no handle")
                return log.all
            }
            try ctx.expect(log == ["kept"], "ran \(log)")
        },
        Rule(
            .trm3, "the thread's state resets after the drain",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale:
                """
                Once the outermost action and its queue are done, the next `schedule` on that thread must run inline \
                again.
                """,
            hint: "the 'running' flag is cleared on every exit path, and the queue is empty afterwards."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let inline = try ctx.onFreshThread { () -> Bool in
                scheduler.schedule { scheduler.schedule {} }
                let ran = Box(false)
                scheduler.schedule { ran.value = true }
                return ran.value
            }
            try ctx.expect(inline, "a schedule after the drain did not run inline")
        },
        Rule(
            .trm4, "threads do not share a queue",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale:
                """
                The trampoline is per thread: one thread's nested work must never run on another thread or be delayed \
                by it.
                """,
            hint: "the queue and the running flag live in thread-local storage, not in the shared scheduler object."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let aInside = Signal()
            let bCalled = Signal()
            let problems = Recorder<String>()
            // Thread A holds its trampoline open until thread B has scheduled: with a
            // per-thread queue B's action runs inline on B; with a shared one it lands in
            // A's queue.
            try ctx.onThreads(2) { index in
                let me = ThreadProbe.id
                if index == 0 {
                    scheduler.schedule {
                        aInside.fire()
                        _ = bCalled.wait(.seconds(2))
                        scheduler.schedule {
                            if ThreadProbe.id != me { problems.record("A's nested action ran on another thread") }
                        }
                    }
                } else {
                    _ = aInside.wait(.seconds(2))
                    let ran = Box(false)
                    scheduler.schedule {
                        if ThreadProbe.id != me { problems.record("B's action ran on another thread") }
                        ran.value = true
                    }
                    if !ran.value { problems.record("B's action did not run inline while A's trampoline was busy") }
                    bCalled.fire()
                }
            }
            try ctx.expect(problems.count == 0, problems.all.joined(separator: "; "))
        },
        Rule(
            .trm5, "a chain of 100,000 nested schedules does not grow the stack",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale:
                """
                Recursion through the trampoline is how RxSwift avoids stack overflows; depth must cost queue space, \
                not stack.
                """,
            hint: "nested `schedule` only enqueues while the drain runs; the drain is a loop, not a recursive call."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let growth = try ctx.onFreshThread { () -> (depth: Int, growth: UInt) in
                let meter = StackMeter()
                let depth = Box(0)
                @Sendable func step() {
                    meter.sample()
                    guard !meter.exceeded,
                        depth.update({
                            $0 += 1
                            return $0
                        }) < 100_000
                    else { return }
                    scheduler.schedule(step)
                }
                scheduler.schedule(step)
                return (depth.value, meter.growth)
            }
            try ctx.expect(
                growth.growth < StackMeter.limit,
                "the stack grew by \(growth.growth) bytes after \(growth.depth) nested schedules")
            try ctx.expect(growth.depth == 100_000, "only \(growth.depth) of 100,000 nested actions ran")
        },
        Rule(
            .trm6, "threads trampolining at the same moment each drain their own queue",
            requires: .trampoline,
            excludes: .threadConfined,
            rationale:
                """
                Many threads use the one shared trampoline at once; each thread's nested work must run on it, in its \
                order, none lost or taken by another thread.
                """,
            hint:
                "the queue and the running flag are both per thread; nothing about the drain is shared between threads."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let threads = 4
            let nested = 50
            let inside = DispatchGroup()
            for _ in 0..<threads { inside.enter() }
            let problems = Recorder<String>()
            let together = Box(true)
            // Every thread enters its outer action and waits there until all are inside, so
            // every trampoline is busy at once; then each queues its nested work.
            try ctx.onThreads(threads) { index in
                let me = ThreadProbe.id
                let ran = Recorder<Int>()
                let returned = Box(false)
                scheduler.schedule {
                    inside.leave()
                    if inside.wait(timeout: .now() + (ctx.timing.lateness * 4).dispatchInterval) == .timedOut {
                        together.value = false
                    }
                    for item in 0..<nested {
                        scheduler.schedule {
                            if ThreadProbe.id != me {
                                problems.record("thread \(index)'s action \(item) ran on another thread")
                            }
                            if !returned.value {
                                problems.record("thread \(index)'s action \(item) ran before its outer action returned")
                            }
                            ran.record(item)
                        }
                    }
                    returned.value = true
                }
                if ran.all != Array(0..<nested) {
                    problems.record(
                        """
                        thread \(index) ran \(ran.count) of \(nested) nested actions by the time its `schedule` \
                        returned, in order \(ran.all.prefix(5))…
                        """
                    )
                }
            }
            try ctx.expect(problems.count == 0, problems.all.prefix(3).joined(separator: "; "))
            try ctx.requireExercised(
                together.value, "the \(threads) threads were never inside their trampolines at the same moment")
        },
    ]
}
