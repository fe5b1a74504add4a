import SchedulerConformance
import SchedulerStress

/// Why each third-party subject fails the rules it fails, as found by `make matrix` and
/// read from the libraries' sources: a bug of theirs, or a difference of semantics.
/// The matrix generator prints these under the table; a failure without an entry is
/// printed as unexplained, to be investigated.
public enum Deviations {
    /// Keyed by "subject rule-ID", "* rule-ID" or "subject *" (see ``Explanations``); stress
    /// scenarios are keyed the same way, by scenario ID ("swift-actor fan-in").
    public static let explanations: Explanations = [
        .rule(.can3, of: .nioEventLoop):
            """
        library design, documented: the loop copies a batch of due tasks out of its queue under its lock and runs \
        them after releasing it (`SelectableEventLoop`'s `tasksCopy`); `Scheduled.cancel()` removes the task from \
        the queue only, so a task already copied into the running batch still runs after `cancel()` returned. \
        NIO's documentation says cancellation 'is not guaranteed'. Seen when the disposal comes while the task \
        ahead of it in the same batch runs. Reproduction: schedule two tasks due now, cancel the second from \
        another thread while the first runs: the second runs.
        """,
        .rule(.lin1, of: .nioEventLoop):
            """
        the CAN-3 design seen again by a generated scenario: a task cancelled while it sits in the loop's running \
        batch still runs after `cancel()` returned, whether the cancel comes from another thread or from a task \
        ahead of it in the same batch. Reproduction on one thread: schedule two tasks due now (`scheduleTask`) \
        and cancel the second's `Scheduled` from inside the first: the second runs.
        """,
        .rule(.lin1, of: .swiftActor):
            """
        the ORD-1 difference seen again by a generated scenario: unstructured tasks reach the actor in no \
        promised order, so actions (and the sentinel the rule waits on) run out of the order they were scheduled in.
        """,
        .rule(.lin2, of: .combineSchedulersTest):
            """
        the VT-10 bug seen again by a generated scenario: work scheduled for a time the scheduler has already \
        passed runs at that past time, not at the present. Driven from two threads at once, as LIN-2 does unless \
        a subject declares `.drivenFrom(.oneThread)`, it also mixes the two drives: `advance(to:)` runs each \
        action outside its lock, so the other drive's actions run beside it, and an advance that checked the \
        time before the other moved it sets the time back to its own, earlier target. Reproduction: from one \
        thread advance into an action that waits, then advance from another: the second advance's action runs \
        while the first's is still running.
        """,
        .rule(.lin3, of: .swiftClocksTestClock):
            """
        library design, found by a generated scenario once its parked due sleeps were declared \
        (`.dueSleep(.parksUntilNextAdvance)`): `sleep(until:)` checks cancellation again after its wake-up (`for \
        try await _ in stream {}; try Task.checkCancellation()`), so a task cancelled just after `advance` took \
        its sleeper, and moved the time to that sleeper's deadline, still throws `CancellationError`: the clock's \
        time then stands at a deadline no sleeper returned at, and other sleepers read it. Upstream: \
        TestClock.swift, `sleep(until:)`; reproduction: a sleeper at 1 s cancelled from another task while \
        `advance(by: .seconds(3))` runs sometimes throws although the advance already took it. And a library bug \
        that two threads advancing at once show (LIN-3 does unless a clock declares `.drivenFrom(.oneThread)`): \
        `advance(to:)` checks the time, yields, then sets the time to its own target without comparing, so an \
        advance that another moved the time past while it yielded sets the time back, and `advance(by:)` reads \
        the time it adds to before that. Upstream: TestClock.swift, `advance(to:)`; reproduction: two tasks each \
        `await clock.advance(by: .seconds(1))` at once; the clock ends at 1 s, not 2 s.
        """,
        .rule(.tim2):
            """
        stochastic rule, reported only: lateness beyond the bound calibrated at start-up, usually a loaded machine.
        """,
        .rule(.can9, of: .dispatchSerial):
            """
        library design: a `DispatchWorkItem` owns its block for its whole life, so while the caller keeps the \
        item (the adapter's handle) the block, and everything it captured, stays alive after it ran. The adapter \
        could copy the flag out and drop the item, but then `cancel()` would have nothing to cancel: with a work \
        item as the handle, the leak is the price of cancellation. Reproduction: `let item = DispatchWorkItem { _ \
        = token }; queue.async(execute: item); item.wait()`: `token` lives until `item` is released.
        """,
        .rule(.can9, of: .foundationOperationQueueSerial):
            """
        library design: a `BlockOperation` keeps its blocks after it finished (`executionBlocks` stays readable), \
        so while the caller keeps the operation (the adapter's handle, the only way to cancel it) the block and \
        its captures stay alive. Reproduction: `let op = BlockOperation { _ = token }; queue.addOperation(op); \
        op.waitUntilFinished()`: `token` lives until `op` is released.
        """,
        .rule(.can2, of: .foundationOperationQueueSerial):
            """
        library design: `Operation.cancel()` has no effect on an operation that already finished (Foundation \
        documents this), so `isCancelled`, the only cancellation state an operation has and the adapter's \
        `isDisposed`, stays false after a late `dispose()`: the handle cannot tell its owner that it was \
        cancelled. Reproduction: `let op = BlockOperation {}; queue.addOperation(op); op.waitUntilFinished(); \
        op.cancel()`: `op.isCancelled` is false (swift-corelibs-foundation, checked on Linux).
        """,
        .rule(.can12, of: .dispatchConcurrent):
            """
        the dispatch-serial CAN-9 design on a concurrent queue: each handle is a `DispatchWorkItem`, which owns \
        its block for its whole life, so a thousand held handles keep a thousand blocks after they ran.
        """,
        .rule(.can12, of: .foundationOperationQueue):
            """
        the foundation-operationqueue-serial CAN-9 design on a concurrent queue: each handle is a \
        `BlockOperation`, which keeps its blocks after it finished, so held handles keep them alive.
        """,
        .rule(.tim12, of: .openCombineOperationQueue):
            """
        library bug: OpenCombine's `OperationQueue` scheduler repeats by making the next operation ready \
        `interval` after the current action *returned* (`DelayReadyOperation.main`, `becomeReady(after: interval, \
        from: .now())` after `action()`), so every period is stretched by the action's length and the ticks drift \
        off the grid; Combine's `schedule(after:interval:)` promises the action 'at the specified frequency'. \
        Reproduction: `queue.schedule(after: queue.now, interval: .milliseconds(20)) { busy(8 ms); print(Date()) \
        }`: successive prints come 28 ms apart, not 20.
        """,
        .rule(.ord3, of: .swiftActor):
            """
        legitimate difference: an actor serialises its work but unstructured `Task`s reach it in no promised \
        order, so actions from one producer can run out of order under contention (and a sentinel can overtake \
        the work before it, which is how an action can look missing). The adapter still claims `serial` to show \
        it; swift-serial-executor shows the FIFO alternative: `Task.immediate` onto an actor whose custom \
        `SerialExecutor` is a queue.
        """,
        .rule(.ord1, of: .swiftActor):
            "legitimate difference: as ORD-3 — task creation order is not execution order.",
        .scenario(.fanIn, of: .swiftActor):
            "legitimate difference: as swift-actor ORD-3, under load: producers' actions reach the actor out of order.",
        .scenario(.trampolineAndVirtualLoad, of: .nioAsyncTesting):
            """
        library bug: VT-10 under load: a producer computes a deadline from `now` while the driver advances past \
        it, and the late task then runs with the clock set back to its deadline.
        """,
        .scenario(.timerStorm, of: .foundationRunLoop):
            """
        legitimate difference of clocks (probable cause, seen in some runs, not all): a `Timer` fires by a \
        wall-clock `Date`, so the adapter converts the monotonic deadline into a `Date` when it arms the timer; \
        while NTP slews the wall clock (up to 500 ppm), a deadline 20 ms out can come a few microseconds early on \
        the monotonic clock the scenario judges by. Foundation offers no monotonic timer to use instead.
        """,
        .scenario(.timerStorm, of: .openCombineRunLoop):
            """
        legitimate difference of clocks: as foundation-runloop timer-storm; OpenCombine's `RunLoop` scheduler \
        arms Foundation `Timer`s at wall-clock `Date`s too.
        """,
        .rule(.ord1, of: .foundationRunLoop):
            """
        legitimate limitation of Foundation timers (seen in some runs, not all): the adapter arms each action as \
        a `Timer` firing at `Date()` (RunLoop's `perform` does not wake an idle loop), and a `Date` is a `Double` \
        of seconds since 2001, whose resolution today is about 240 ns: actions scheduled closer together than \
        that share a fire date, or after rounding even swap, and the run loop keeps no insertion order among \
        equal fire dates. ORD-1 queues 500 actions back to back while the loop is held, which is when it shows.
        """,
        .rule(.ord3, of: .foundationRunLoop):
            """
        the same as foundation-runloop ORD-1, with several producers: one producer's actions scheduled within a \
        `Date`'s resolution of each other can swap.
        """,
        .scenario(.fanIn, of: .foundationRunLoop):
            """
        the same as foundation-runloop ORD-3, under load: a producer's actions armed within a `Date`'s resolution \
        of each other can swap. Measured outside the suite: one thread arming 20,000 `Timer`s at \
        `Date(timeIntervalSinceNow: 0)` on a run loop's thread saw about 5,900 of them fire before one armed \
        earlier (swift-corelibs-foundation, Linux).
        """,
        .rule(.ord6, of: .foundationRunLoop):
            """
        the same as foundation-runloop ORD-1, across threads: a baton handed from one thread to the next \
        schedules the next action within a `Date`'s resolution of the last, and the two can swap.
        """,
        .rule(.can9, of: .foundationRunLoop):
            """
        looks like a library bug (swift-corelibs-foundation on Linux): a one-shot `Timer` that has fired is never \
        freed, so its block and everything the block captured stay alive. Not checked on Apple's Foundation here.
        """,
        .rule(.can10, of: .foundationRunLoop):
            "the same leak as CAN-9: a timer whose block returned early (disposed) is never freed either.",
        .rule(.thr3, of: .foundationRunLoop):
            "the same leak as CAN-9, a thousand times: every fired timer keeps its block.",
        .subject(.openCombineRunLoop):
            """
        library bug: OpenCombine's `RunLoop` scheduler hands a one-shot action to `RunLoop.perform`, which queues \
        the block without waking the loop (CFRunLoopPerformBlock semantics), so on an idle loop the action waits \
        for the next timer or input source to wake it: here, until the rule gives up. Its timers do wake the \
        loop, which is why the timer rules pass. Combine's contract is that `schedule` runs the action soon.
        """,
        .rule(.vt10, of: .nioEmbedded):
            """
        library bug: a task scheduled with a deadline already past runs with `now` set back to that deadline \
        (`advanceTime` sets the clock to each batch's ready time), so time moves backwards while it runs and \
        jumps forward again after. Past deadlines are ordinary (a timeout computed before a slow step).
        """,
        .rule(.vt10, of: .nioAsyncTesting):
            "library bug: as nio-embedded VT-10; the async loop shares the algorithm.",
        .rule(.lin2, of: .nioAsyncTesting):
            """
        the VT-10 and CAN-1 bugs seen again by generated scenarios: a past deadline runs at its own time, and \
        disposing a pending task does not always stop it.
        """,
        .rule(.lin7, of: .nioEmbedded):
            """
        the VT-10 bug seen again by a generated program (a past deadline runs with `now` set back to it), and a \
        library design: `advanceTime(to:)` takes every task due at one instant out of its queue before running \
        any, so a task cancelled by an earlier task of the same instant still runs (as nio-eventloop's CAN-3). \
        Reproduction on one thread: on an `EmbeddedEventLoop`, schedule two tasks due now with `scheduleTask(in: \
        .zero)`, cancel the second's `Scheduled` from inside the first, then `advanceTime(by: .zero)`: the second \
        runs.
        """,
        .rule(.lin7, of: .nioAsyncTesting):
            """
        the VT-10 bug and nio-embedded's LIN-7 design seen again by a generated program: the async loop shares \
        the embedded loop's algorithm (past deadlines run with `now` set back to them; tasks due at one instant \
        run as one batch, cancelled ones included).
        """,
        .rule(.lin7, of: .combineSchedulersTest):
            """
        the VT-10 bug seen again by a generated program: work scheduled for a time the scheduler has already \
        passed runs with `now` set back to that time, not at the present.
        """,
        .rule(.clk7, of: .swiftClocksTestClock):
            """
        library design (seen in some runs, under load): `TestClock.advance` lets a resumed sleeper run by \
        yielding the advancing task a fixed number of times (`Task.megaYield`, 20 by default) instead of waiting \
        for it, so on a busy machine the sleeper runs only after the clock has moved on to later deadlines and \
        reads a later `now` than its own deadline. Upstream: TestClock.swift, `advance(to:)`; reproduction: three \
        sleepers at 1, 2 and 3 s, `await clock.advance(by: .seconds(5))` while other threads keep the cores busy: \
        a sleeper sometimes reads 5 s.
        """,
        .rule(.clk10, of: .swiftClocksTestClock):
            """
        the same cause as swift-clocks-testclock CLK-7, in `run()`: a task that sleeps again after waking \
        registers its next sleep only when it gets to run, and `run()` looks for the next sleeper after a fixed \
        number of yields; under load it finds none (the task is left sleeping, and `run()` returns) or the next \
        one of another task first (time jumps past the chain's deadline). Upstream: TestClock.swift, \
        `run(timeout:)`; reproduction: a task sleeping 1 s three times, `await clock.run()` under load, sometimes \
        returns with the task still asleep.
        """,
        .rule(.clk4, of: .swiftClocksImmediateClock):
            """
        library bug: `ImmediateClock.sleep(until:)` sets `now` to the deadline even when the deadline is in the \
        past, so sleeping until a moment already passed sends the clock backwards (and every duration measured \
        across it negative). Upstream: ImmediateClock.swift, `sleep(until:)` assigns `self.now = deadline` \
        without `max`; reproduction: `let clock = ImmediateClock(); let start = clock.now; try await \
        clock.sleep(until: start.advanced(by: .seconds(-5)))`, after which `clock.now < start`.
        """,
        .rule(.vt10, of: .combineSchedulersTest):
            """
        library bug: `TestScheduler.advance(to:)` sets `now` to each action's date, so an action scheduled with a \
        date already past moves the clock backwards while it runs (and `run()` can then spin, since \
        `advance(by:)` from the earlier time never reaches the stuck entry). Upstream: TestScheduler.swift, \
        `advance(to:)` assigns `self.now = next.date` without `max`; reproduction: advance a `DispatchQueue.test` \
        by 10 s, `schedule(after: scheduler.now.advanced(by: -5))`, then `advance()`: inside the action `now` is \
        5 s. It also sorts its whole queue before every action, so advancing through n queued actions costs n² \
        log n (VT-9's thousands of ties take about a minute).
        """,
        .scenario(.throughput, of: .combineSchedulersTest):
            """
        library performance bug: as combine-schedulers-test VT-10 notes, `advance(to:)` re-sorts its whole queue \
        before every action, comparing `(date, sequence)` tuples generically, so draining n queued actions costs \
        n² log n: the benchmark's batch of 20,000 does not drain within the budget.
        """,
        .scenario(.growth, of: .combineSchedulersTest):
            """
        the same quadratic drain, measured: an action costs about 0.24 ms with 10³ queued and 2.4 ms with 10⁴ \
        (exponent 2.0); 10⁵ would take hours.
        """,
        .scenario(.trampolineAndVirtualLoad, of: .combineSchedulersTest):
            """
        the same quadratic drain as combine-schedulers-test throughput: several producers keep thousands of \
        actions queued while the driver advances.
        """,
        .rule(.can1, of: .nioAsyncTesting):
            """
        library bug: cancelling a `Scheduled` from outside the loop fails its promise, and completing a promise \
        off the loop goes through `execute`, which on this loop runs every due task at once; the removal of the \
        cancelled task is queued behind that run, so the cancelled task runs. A cancel from a test thread also \
        makes the loop run without being driven.
        """,
    ]
}

extension Explanations.Key {
    /// `subject` failing the rule `id`.
    static func rule(_ id: RuleID, of subject: ThirdPartySubjectName) -> Self { rule(id, of: subject.rawValue) }

    /// `subject` failing the stress scenario `scenario`.
    static func scenario(_ scenario: StressScenario, of subject: ThirdPartySubjectName) -> Self {
        .scenario(scenario, of: subject.rawValue)
    }

    /// Every check of `subject`, failing for one cause.
    static func subject(_ subject: ThirdPartySubjectName) -> Self { .subject(subject.rawValue) }
}
