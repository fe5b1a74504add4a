import Foundation
import SchedulerProbes
import Schedulers

/// CAN-3. A start that comes after `dispose()` returned is a violation unless the suite has
/// evidence that the worker was held up in between: a correct scheduler claims an action in
/// one atomic step and calls it at once, so its start trails its claim by well under a
/// microsecond unless the thread is stopped there. Three kinds of evidence are read, and no
/// share of late starts is put down to luck:
/// - the worker's own context switches since the pacer ahead of the action returned, and
///   its processor time falling behind the clock (the host took its core) in that stretch
///   (`ThreadMark`s taken by the pacer as it ends and by the action as it starts: on another
///   thread than its pacer's, a start has no evidence);
/// - interrupts taken by the worker's core, which stop its thread unseen by the thread's own
///   counts (20 to 100 µs each on the CI machine): the disposing thread reads every core's
///   count after a late start, against a reading taken since the worker last came onto its
///   core and at most `DisposalTally.baselineAge` before the word to return (`CoreInterrupts`);
/// - pauses of the whole machine, which a virtual machine's host makes without the guest
///   counting them: the disposing thread watches the clock from its core until the action
///   starts (`PauseWatch`), and a gap in its reads means both cores stood still.
/// A late start with neither, on a worker that kept its core and a machine that kept
/// running, is a suspect (see `DisposalTally`). One that no watch covered, or that ran on
/// another thread than its pacer, is unjudged and does not count as exercised.
///
/// Each action follows a pacer that spins until the disposing thread tells it to return.
/// Trials come in blocks of ten, each trial's pacer and action queued while the pacer ahead
/// still spins: the worker goes from one to the next without waiting for work, so a block
/// wakes it once (a wake-up is an interrupt of its core, and costs a read of the counts).
/// The third round comes one trial at a time, and the rest in whichever way exercised more
/// races a second (the first only warms up).
/// Three trials in four dispose 0 to 40 µs after that word (the race with the worker's
/// pick-up of the action); one in four disposes 20 to 60 µs before it, while the pacer still
/// runs, and then any start at all is a violation, whatever the timing (a check made early,
/// for a whole batch or ahead of time, must not decide). A pick-up race counts as exercised
/// when the pacer returned within 10 µs of the word (both threads were running) and the
/// disposal came after it. The rule runs until 4,000 races were exercised with evidence (up
/// to 30,000 trials or 20 s, 40 s while one suspect awaits a second, else inconclusive) and
/// stops at the round that shows a violation.
///
/// Only serial schedulers are judged: a concurrent one cannot be paced, and its pool threads
/// run other work between the suite's actions, so nothing could bracket its pick-up.
func disposeRacingTheStart(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let wanted = 4_000
    // Judged after every round: a subject that breaks the rule in a trial of four is caught
    // after 250 trials, not 1,000, and a late start on a stopped machine sets aside a quarter
    // of the trials it did with rounds of 1,000.
    let round = 250
    let attempts = 30_000
    var random = SystemRandomNumberGenerator()
    var tally = DisposalTally()
    // The control: the reference queue's atomic claim, put through the same trials at the
    // same moments (a block of control trials after each of the subject's). A round in which the
    // control had a late start with no evidence is one in which the machine stopped threads
    // unseen: its late starts are no evidence against the subject, and the round is set aside.
    let control = QueueScheduler(name: "CAN-3 control")
    var setAside = 0
    var racer = DisposalRacer(pacerBound: min(ctx.timing.mustHappen, .milliseconds(100)))
    // Bounded in time too: on a machine so loaded that the two threads rarely run at once,
    // every trial costs a watch and a pacer spin, and the rule gives up (inconclusive) well
    // inside its timeout. A single suspect is a sign that only a second one can confirm or
    // the wanted races clear, so the rule goes on for it up to twice as long.
    let started = ContinuousClock.now
    let budget = Timing.evidenceBudget(.seconds(20))
    var withinBudget: Bool {
        let elapsed = started.duration(to: .now)
        return elapsed < budget || (tally.suspects.count == 1 && elapsed < budget * 2)
    }
    var attempted = 0
    // Blocks of ten, or one trial at a time, whichever exercised more races a second in its
    // first round: a worker that spins from pacer to pacer competes with the machine's other
    // work as a busy thread, while one woken for each trial is run at once, so on a loaded
    // machine the trials may race more often one at a time.
    var pace = DisposalPace()
    while tally.exercised < wanted && attempted < attempts && withinBudget {
        let block = pace.block
        let roundStarted = ContinuousClock.now
        var trials: [DisposalTrial] = []
        var controls: [DisposalTrial] = []
        trials.reserveCapacity(round)
        controls.reserveCapacity(round)
        while trials.count < round {
            let (count, first) = (min(block, round - trials.count), attempted + trials.count)
            trials += try racer.trials(count, on: scheduler, ctx, firstIndex: first, using: &random)
            controls += try racer.trials(count, on: control, ctx, firstIndex: first, using: &random)
        }
        try ctx.settle(scheduler)
        try ctx.settle(scheduler)
        try ctx.settle(control)
        var roundTally = DisposalTally(firstIndex: attempted)
        var controlTally = DisposalTally(firstIndex: attempted)
        for trial in trials { roundTally.add(trial) }
        for trial in controls { controlTally.add(trial) }
        attempted += round
        pace.record(block: block, exercised: roundTally.exercised, in: roundStarted.duration(to: .now))
        // A start after an early disposal is a violation by the order of events, whatever
        // the machine did; late starts count only from rounds the control came through clean.
        if controlTally.suspects.isEmpty {
            tally.absorb(roundTally)
        } else {
            tally.absorbViolations(roundTally)
            setAside += 1
        }
        if let failure = tally.failure() { throw RuleFailure(failure) }
    }
    let blocks = pace.block == 1 ? "one trial at a time" : "blocks of \(pace.block)"
    ctx.note("\(tally.exercised) races exercised in \(attempted) trials (\(blocks), \(setAside) rounds set aside)")
    try ctx.requireExercised(
        tally.exercised >= wanted,
        """
        only \(tally.exercised) of \(attempted) disposals raced the start of their action with evidence of who ran \
        (\(tally.suspects.count) late starts with no evidence of a hold-up, of the 2 that would fail the rule; \
        \(tally.unjudged) late starts on threads with no evidence; \(setAside) rounds of \(round) set aside, in which \
        the suite's own atomic-claim control had a late start with no evidence, so this machine stopped threads unseen)
        """
    )
}

/// How CAN-3 queues its trials: in blocks of ``DisposalRacer/block`` for the first two
/// rounds, one at a time for the third, then in whichever way exercised more races a second.
/// The first round only warms up (the worker's thread, the trials' first allocations, the
/// control's queue): timed, it made blocks look slower than single trials in half the runs
/// of a quiet machine, where blocks race twice as many a second.
struct DisposalPace {
    private var rates: [Int: Double] = [:]
    private var warmedUp = false

    /// The block size for the next round.
    var block: Int {
        guard let chained = rates[DisposalRacer.block] else { return DisposalRacer.block }
        guard let single = rates[1] else { return 1 }
        return chained >= single ? DisposalRacer.block : 1
    }

    /// Records a round's races exercised, the first of each block size after the warm-up.
    mutating func record(block: Int, exercised: Int, in duration: Duration) {
        guard warmedUp else {
            warmedUp = true
            return
        }
        if rates[block] == nil { rates[block] = Double(exercised) / max(duration.timeInterval, 1e-6) }
    }
}
