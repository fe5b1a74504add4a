import SchedulerConformance

/// Why each third-party subject fails the rules it fails, as found by `make matrix` and
/// read from the libraries' sources: a bug of theirs, or a difference of semantics.
/// The matrix generator prints these under the table; a failure without an entry is
/// printed as unexplained, to be investigated.
public enum Deviations {
    /// Keyed by "subject rule-ID", "* rule-ID" or "subject *" (see ``Explanations``); stress
    /// scenarios are keyed the same way, by scenario ID ("swift-actor fan-in").
    public static let explanations: Explanations = [
        "* CAN-3": "stochastic rule, reported only: a dispose racing the start. Schedulers that check a cancelled flag and then run (Operation's `isCancelled`, a disposed flag, ReactiveCocoa's model) can start an action well after `dispose()` returned, more often than preemption alone explains; an atomic claim (the reference queue scheduler's) does so only when its worker is preempted between the claim and the call.",
        "* TIM-2": "stochastic rule, reported only: lateness beyond the bound calibrated at start-up, usually a loaded machine.",
        "* TIM-6": "stochastic rule, reported only: repeating lateness beyond interval + leeway + the calibrated bound, usually a loaded machine.",
        "swift-actor ORD-3": "legitimate difference: an actor serialises its work but unstructured `Task`s reach it in no promised order, so actions from one producer can run out of order under contention (and a sentinel can overtake the work before it, which is how an action can look missing). The adapter still claims `serial` to show it; swift-serial-executor shows the FIFO alternative: `Task.immediate` onto an actor whose custom `SerialExecutor` is a queue.",
        "swift-actor ORD-1": "legitimate difference: as ORD-3 — task creation order is not execution order.",
        "swift-actor fan-in": "legitimate difference: as swift-actor ORD-3, under load: producers' actions reach the actor out of order.",
        "nio-asynctesting trampoline-virtual-load": "library bug: VT-10 under load: a producer computes a deadline from `now` while the driver advances past it, and the late task then runs with the clock set back to its deadline.",
        "foundation-runloop timer-storm": "legitimate difference of clocks (probable cause, seen in some runs, not all): a `Timer` fires by a wall-clock `Date`, so the adapter converts the monotonic deadline into a `Date` when it arms the timer; while NTP slews the wall clock (up to 500 ppm), a deadline 20 ms out can come a few microseconds early on the monotonic clock the scenario judges by. Foundation offers no monotonic timer to use instead.",
        "opencombine-runloop timer-storm": "legitimate difference of clocks: as foundation-runloop timer-storm; OpenCombine's `RunLoop` scheduler arms Foundation `Timer`s at wall-clock `Date`s too.",
        "foundation-runloop CAN-9": "looks like a library bug (swift-corelibs-foundation on Linux): a one-shot `Timer` that has fired is never freed, so its block and everything the block captured stay alive. Not checked on Apple's Foundation here.",
        "foundation-runloop CAN-10": "the same leak as CAN-9: a timer whose block returned early (disposed) is never freed either.",
        "foundation-runloop THR-3": "the same leak as CAN-9, a thousand times: every fired timer keeps its block.",
        "opencombine-runloop *": "library bug: OpenCombine's `RunLoop` scheduler hands a one-shot action to `RunLoop.perform`, which queues the block without waking the loop (CFRunLoopPerformBlock semantics), so on an idle loop the action waits for the next timer or input source to wake it: here, until the rule gives up. Its timers do wake the loop, which is why the timer rules pass. Combine's contract is that `schedule` runs the action soon.",
        "nio-embedded VT-10": "library bug: a task scheduled with a deadline already past runs with `now` set back to that deadline (`advanceTime` sets the clock to each batch's ready time), so time moves backwards while it runs and jumps forward again after. Past deadlines are ordinary (a timeout computed before a slow step).",
        "nio-asynctesting VT-10": "library bug: as nio-embedded VT-10; the async loop shares the algorithm.",
        "swift-clocks-testclock CLK-4": "library behaviour, pinned by its own test (`testSleepUntilExactlyNow`): `TestClock.sleep(until:)` returns at once only for a deadline strictly before `now`; one equal to `now` registers a sleeper that waits for the next `advance`, which a test that computed its deadline from `now` never makes, so it hangs (ContinuousClock returns at once). Upstream: TestClock.swift, `sleep(until:)` compares `deadline < now` where `<=` is meant; reproduction: `let clock = TestClock(); try await clock.sleep(until: clock.now)` suspends until `advance()`.",
        "combine-schedulers-test VT-10": "library bug: `TestScheduler.advance(to:)` sets `now` to each action's date, so an action scheduled with a date already past moves the clock backwards while it runs (and `run()` can then spin, since `advance(by:)` from the earlier time never reaches the stuck entry). Upstream: TestScheduler.swift, `advance(to:)` assigns `self.now = next.date` without `max`; reproduction: advance a `DispatchQueue.test` by 10 s, `schedule(after: scheduler.now.advanced(by: -5))`, then `advance()`: inside the action `now` is 5 s. It also sorts its whole queue before every action, so advancing through n queued actions costs n² log n (VT-9's thousands of ties take about a minute).",
        "nio-asynctesting CAN-1": "library bug: cancelling a `Scheduled` from outside the loop fails its promise, and completing a promise off the loop goes through `execute`, which on this loop runs every due task at once; the removal of the cancelled task is queued behind that run, so the cancelled task runs. A cancel from a test thread also makes the loop run without being driven.",
    ]
}
