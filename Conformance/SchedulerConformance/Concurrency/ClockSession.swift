import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

/// What a CLK rule works with: a fresh clock from the subject, and tasks sleeping on it
/// whose every step the rule can wait for, so no rule sleeps to let a task get somewhere.
///
/// Sleeping tasks run on the clock's own executor when it names one (a virtual clock's,
/// which advancing it runs), otherwise on a ``ProbeExecutor`` that tells when they are
/// parked.
struct ClockSession {
    let ctx: RuleContext
    let clock: ClockUnderTest
    private let probe = ProbeExecutor()

    init(_ ctx: RuleContext) {
        self.ctx = ctx
        self.clock = ctx.subject.makeClock()
    }

    /// The clock's time, as the offset from its adapter's origin.
    var now: Duration { clock.now() }

    /// Starts a task running `body` on `executor`, its outcome recording the clock's time
    /// when the body returned; for a clock whose sleepers may run anywhere.
    func start(
        on executor: any TaskExecutor, _ body: @escaping @Sendable (ClockUnderTest) async throws -> Void
    ) -> ProbeTask {
        let task = ProbeTask()
        let clock = self.clock
        task.start(on: executor) {
            try await body(clock)
            return clock.now()
        }
        return task
    }

    /// Starts a task running `body` on the clock; its outcome records the clock's time
    /// when the body returned. On the suite's probe executor, `resumed` is called each time
    /// the task is handed back after a suspension, on the resuming thread.
    func start(
        resumed: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable (ClockUnderTest) async throws -> Void
    ) -> ProbeTask {
        let task = ProbeTask()
        let clock = self.clock
        let executor: any TaskExecutor = clock.sleeperExecutor ?? resumed.map { probe.lane(resumed: $0) } ?? probe
        task.start(on: executor) {
            try await body(clock)
            return clock.now()
        }
        return task
    }

    /// A task sleeping until `deadline`, proven parked: it started, ran into the sleep and
    /// is suspended there, not finished. A sleep that returned already fails the rule.
    func parkedSleeper(until deadline: Duration, _ what: String) throws(RuleFailure) -> ProbeTask {
        let task = start { clock in try await clock.sleepUntil(deadline, nil) }
        try settle()
        if let outcome = task.outcome {
            throw RuleFailure(
                "\(what): sleep(until: \(deadline)) ended before its deadline, at \(now), with \(outcome)")
        }
        return task
    }

    /// `count` tasks sleeping until `deadline`, each proven parked before the next goes to
    /// sleep, so the order they registered in is known; each records its index in `woke`
    /// once its sleep returned.
    func parkedTies(_ count: Int, until deadline: Duration, woke: Recorder<Int>, _ what: String) throws(RuleFailure)
        -> [ProbeTask]
    {
        try parkedSleepers(until: Array(repeating: deadline, count: count), woke: woke, what)
    }

    /// A task sleeping until each of `deadlines`, registered in that order, each proven
    /// parked before the next goes to sleep; each records its index in `woke` once its
    /// sleep returned.
    func parkedSleepers(until deadlines: [Duration], woke: Recorder<Int>, _ what: String) throws(RuleFailure)
        -> [ProbeTask]
    {
        var sleepers: [ProbeTask] = []
        for (index, deadline) in deadlines.enumerated() {
            sleepers.append(
                start { clock in
                    try await clock.sleepUntil(deadline, nil)
                    woke.record(index)
                })
            try settle()
            if let outcome = sleepers[index].outcome {
                throw RuleFailure(
                    "\(what) \(index): sleep(until: \(deadline)) ended before its deadline, at \(now), with \(outcome)")
            }
        }
        return sleepers
    }

    /// Cancels `sleepers[index]` for each of `indices`, in that order, and fails unless
    /// each ends with `CancellationError` without the clock moving.
    func cancel(_ indices: [Int], of sleepers: [ProbeTask], _ what: String) throws(RuleFailure) {
        for index in indices { sleepers[index].cancel() }
        try settle()
        for index in indices {
            let outcome = try outcome(of: sleepers[index], "\(what) \(index), cancelled,")
            guard case .cancelled = outcome else {
                throw RuleFailure("\(what) \(index) was cancelled but ended with \(outcome)")
            }
        }
    }

    /// Fails unless every one of `live` (indices into `sleepers`) returned at `deadline` and
    /// `woke` recorded them exactly once each, in that order: ties resume FIFO, none is lost
    /// to a neighbour's cancellation and none comes back twice.
    func expectResumed(
        _ live: [Int], of sleepers: [ProbeTask], at deadline: Duration, woke: Recorder<Int>, after step: String
    ) throws(RuleFailure) {
        try expectResumed(
            live, of: sleepers, at: Array(repeating: deadline, count: sleepers.count), woke: woke, after: step)
    }

    /// Fails unless every one of `live` returned at its own one of `deadlines` (indexed as
    /// `sleepers`) and `woke` recorded them exactly once each, in the order of `live`.
    func expectResumed(
        _ live: [Int], of sleepers: [ProbeTask], at deadlines: [Duration], woke: Recorder<Int>, after step: String
    ) throws(RuleFailure) {
        for index in live {
            let outcome = try outcome(of: sleepers[index], "live sleeper \(index) of \(sleepers.count), \(step),")
            try ctx.expect(
                outcome == .returned(at: deadlines[index]),
                "live sleeper \(index) ended with \(outcome), expected to return at \(deadlines[index])")
        }
        try ctx.expect(
            woke.all == live,
            "\(step), the live sleepers resumed as \(woke.all), expected \(live) (deadline order, ties FIFO, each once)"
        )
    }

    /// Lets every task started here run until it finishes or suspends, without moving the
    /// clock's time.
    func settle() throws(RuleFailure) {
        switch clock.driver {
        case .blocking(let advance, _)?:
            advance(.zero)
        case .async(let advance, _)? where clock.sleeperExecutor != nil:
            try ctx.perform("advance(by: .zero)") { await advance(.zero) }
        default:
            break
        }
        try waitForTasks()
    }

    /// Waits until every task started here on the suite's own executor has finished or
    /// suspended, without driving the clock (tasks on the clock's executor run only when it is).
    func waitForTasks() throws(RuleFailure) {
        if clock.sleeperExecutor == nil, !probe.waitIdle(ctx.timing.mustHappen) {
            throw ctx.hang(
                "tasks on the clock were still running after \(ctx.timing.mustHappen)",
                stuck: probe.runningThread.map { [("the clock's task", $0)] } ?? [])
        }
    }

    /// Advances a manual clock by `duration` and lets what it resumed run.
    func advance(by duration: Duration) throws(RuleFailure) {
        try drive(by: duration)
        try settle()
    }

    /// Advances a manual clock by `duration`, or runs it when nil, and returns as soon as
    /// the driving call did, without waiting for what it resumed.
    func drive(by duration: Duration?) throws(RuleFailure) {
        switch (clock.driver, duration) {
        case (.blocking(let advance, _)?, let duration?): advance(duration)
        case (.blocking(_, let run?)?, nil): run()
        case (.async(let advance, _)?, let duration?):
            try ctx.perform("advance(by: \(duration))") { await advance(duration) }
        case (.async(_, let run?)?, nil): try ctx.perform("run()") { await run() }
        case (_?, nil): throw RuleFailure("run() asked of a clock that has none", kind: .error)
        case (nil, _): throw RuleFailure("advance and run need a manual clock", kind: .error)
        }
    }

    /// Advances a manual clock to one nanosecond before `deadline`, where `sleeper` must
    /// still sleep, then to `deadline`, and returns how the sleeper ended.
    func wakeExactly(_ sleeper: ProbeTask, at deadline: Duration, _ what: String) throws(RuleFailure)
        -> ProbeTask.Outcome
    {
        try advance(by: deadline - now - .nanoseconds(1))
        try ctx.expect(
            sleeper.outcome == nil, "\(what) resumed at \(now), before its deadline \(deadline): \(sleeper.outcome!)")
        try advance(by: .nanoseconds(1))
        return try outcome(of: sleeper, "\(what), once the clock reached its deadline \(deadline),")
    }

    /// Runs a manual clock until no sleeper is left, and lets what it resumed run.
    func run() throws(RuleFailure) {
        try drive(by: nil)
        try settle()
    }

    /// How `task` ended, waiting up to `Timing.mustHappen` (a bound a passing rule never
    /// reaches). A task still on a thread then is stuck in a call, a hang named where it is;
    /// a suspended one waits for a wake that never came, a failure.
    func outcome(of task: ProbeTask, _ what: @autoclosure () -> String) throws(RuleFailure) -> ProbeTask.Outcome {
        guard task.finished.wait(ctx.timing.mustHappen), let outcome = task.outcome else {
            let message = "\(what()) did not end within \(ctx.timing.mustHappen)"
            if let thread = task.runningThread { throw ctx.hang(message, stuck: [("its task", thread)]) }
            throw RuleFailure(message)
        }
        return outcome
    }

    /// Runs `body` on the clock in a task and returns the clock's time when it returned.
    func perform(
        _ what: @autoclosure () -> String, within bound: Duration? = nil,
        _ body: @escaping @Sendable (ClockUnderTest) async throws -> Void
    ) throws(RuleFailure) -> Duration {
        let clock = self.clock
        return try ctx.perform(what(), within: bound) {
            try await body(clock)
            return clock.now()
        }
    }
}
