import SchedulerProbes
import Schedulers

/// CLK-5's part for a sleep cancelled while it starts: the task's first step (which runs
/// into the sleep: the cancellation check, the sleeper's registration, its scheduled
/// wake-up, the suspension) runs on one thread of a ``CallRace`` while the other cancels the
/// task. Whichever gets in first, the sleep must end with `CancellationError`, and on a
/// manual clock it must leave nothing behind: `run()` afterwards does not move the clock to
/// the cancelled sleep's deadline. A clock that registers the wake-up after checking for a
/// cancel, in two critical sections, or that a cancel finds before the wake-up is recorded,
/// leaves the wake-up scheduled (run() then moves the time an hour on) or loses the
/// sleeper's continuation (the task never ends).
///
/// The task's steps run on a ``HandExecutor`` the starting thread drains; a clock whose
/// sleepers must run on its own executor is driven there instead, by `advance(by: .zero)`
/// (a clock driven only from a task is not judged here). A trial counts as exercised when
/// the cancel overlapped the sleep's start on threads that kept their cores; the part goes
/// on until 3,000 did and the trials swept every offset (up to 100,000 trials or 10 s, else
/// inconclusive): the windows between a sleep's registration steps are a few hundred
/// nanoseconds of a call that takes microseconds.
func cancelRacingTheSleepsStart(_ ctx: RuleContext) throws(RuleFailure) {
    let session = ClockSession(ctx)
    let clock = session.clock
    let hand = HandExecutor()
    let drive: @Sendable () -> Void
    switch (clock.sleeperExecutor, clock.driver) {
    case (nil, _): drive = { hand.runAll() }
    case (_?, .blocking(let advance, _)?): drive = { advance(.zero) }
    case (_?, _): return
    }
    let race = CallRace(bound: ctx.timing.mustHappen)
    // One trial at a time: a drive runs every task waiting to start.
    try race.explore(
        ctx, until: 3_000,
        pairs: "cancels overlapped the start of their task's sleep with both threads on a core",
        batch: 1,
        prepare: { _ in
            let deadline = session.now + .seconds(3_600)
            let sleeper =
                clock.sleeperExecutor == nil
                ? session.start(on: hand) { clock in try await clock.sleepUntil(deadline, nil) }
                : session.start { clock in try await clock.sleepUntil(deadline, nil) }
            return (sleeper: sleeper, deadline: deadline)
        },
        race: { setup, thread, lag in
            race.pause(lag, on: thread)
            let begin = race.stamp()
            if thread == 0 { drive() } else { setup.sleeper.cancel() }
            return (begin, race.stamp())
        },
        judge: { trials, batch throws(RuleFailure) in
            let ((sleeper, deadline), trial) = batch[0]
            // What the cancel resumed runs where the task's steps run.
            let ended = spinWait(upTo: ctx.timing.mustHappen) {
                drive()
                return sleeper.finished.hasFired
            }
            let timing =
                trial.spans[1].start < trial.spans[0].start ? "the cancel came first" : "the sleep started first"
            guard ended, let result = sleeper.outcome else {
                throw RuleFailure(
                    """
                    a sleep cancelled as it started never ended (\(timing), trial \(trials)): its continuation was lost
                    """
                )
            }
            guard result == .cancelled else {
                throw RuleFailure(
                    """
                    a sleep an hour ahead, cancelled as it started, ended with \(result), not CancellationError \
                    (\(timing), trial \(trials))
                    """
                )
            }
            guard clock.hasRun else { return }
            let before = session.now
            try session.run()
            let after = session.now
            try ctx.expect(
                after == before,
                """
                a sleep cancelled as it started left its wake-up on the clock: run() moved it from \(before) to \
                \(after) (the sleep's deadline was \(deadline); \(timing), trial \(trials))
                """
            )
        }
    )
}
