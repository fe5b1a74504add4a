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
/// The second round comes one trial at a time, and the rest in whichever way exercised more
/// races a second.
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
    defer { racer.finish() }
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
    try ctx.requireExercised(
        tally.exercised >= wanted,
        "only \(tally.exercised) of \(attempted) disposals raced the start of their action with evidence of who ran (\(tally.suspects.count) late starts with no evidence of a hold-up, of the 2 that would fail the rule; \(tally.unjudged) late starts on threads with no evidence; \(setAside) rounds of \(round) set aside, in which the suite's own atomic-claim control had a late start with no evidence, so this machine stopped threads unseen)"
    )
}

/// How CAN-3 queues its trials: in blocks of ``DisposalRacer/block`` for the first round,
/// one at a time for the second, then in whichever way exercised more races a second.
private struct DisposalPace {
    private var rates: [Int: Double] = [:]

    /// The block size for the next round.
    var block: Int {
        guard let chained = rates[DisposalRacer.block] else { return DisposalRacer.block }
        guard let single = rates[1] else { return 1 }
        return chained >= single ? DisposalRacer.block : 1
    }

    /// Records a round's races exercised, the first of each block size.
    mutating func record(block: Int, exercised: Int, in duration: Duration) {
        if rates[block] == nil { rates[block] = Double(exercised) / max(duration.timeInterval, 1e-6) }
    }
}

/// Runs CAN-3's trials: a pacer and an action on a serial scheduler, the action disposed
/// before or after the pacer is told to return, the disposing thread watching for its start.
private struct DisposalRacer {
    /// How many trials follow one another on the worker without a pause.
    static let block = 10
    let pacerBound: Duration
    /// Whether the disposing thread was moved off a core (and must be let back on it).
    private var moved = false
    /// The latest reading of every core's interrupts, when it was taken, and the mark the
    /// pacer running then took as it started.
    private var baseline: (reading: CoreInterrupts?, at: ContinuousClock.Instant, pacer: ThreadMark)?

    init(pacerBound: Duration) { self.pacerBound = pacerBound }

    /// `count` trials on `scheduler`, each one's pacer and action queued before the pacer
    /// ahead is told to return; the caller settles the scheduler before reading them.
    mutating func trials(
        _ count: Int, on scheduler: any Scheduler, _ ctx: RuleContext, firstIndex: Int,
        using random: inout SystemRandomNumberGenerator
    ) throws(RuleFailure) -> [DisposalTrial] {
        var trials: [DisposalTrial] = []
        var next = try queue(on: scheduler, using: &random)
        for index in 0..<count {
            let (trial, handle) = next
            if index + 1 < count { next = try queue(on: scheduler, using: &random) }
            try race(trial, handle, on: scheduler, ctx, index: firstIndex + index)
            trials.append(trial)
        }
        return trials
    }

    /// Queues one trial's pacer and action on `scheduler`.
    private func queue(
        on scheduler: any Scheduler, using random: inout SystemRandomNumberGenerator
    ) throws(RuleFailure) -> (DisposalTrial, any Disposable) {
        let early = Int.random(in: 0..<4, using: &random) == 0
        let offset = Duration.nanoseconds(
            early ? -Int64.random(in: 20_000...60_000, using: &random) : Int64.random(in: 0...40_000, using: &random))
        let trial = DisposalTrial(offset: offset)
        let pacerBound = self.pacerBound
        scheduler.schedule {
            trial.pacerCore.value = CorePinning.currentCore
            trial.pacerStartMark.value = ThreadMark.now()
            trial.pacerStarted.fire()
            // Bounded well below the must-happen wait: a pacer left spinning (its rule gave
            // up on a stuck subject) must not take a core from the rules after it.
            trial.pacerSawGo.value = spinWait(upTo: pacerBound) { trial.go.hasFired }
            trial.pacerMark.value = ThreadMark.now()
            trial.pacerEnd.value = ContinuousClock.now
        }
        let handle = scheduler.schedule {
            let start = ContinuousClock.now
            trial.evidence.value = ThreadMark.now()?.evidence(since: trial.pacerMark.value) ?? .unknown
            trial.start.value = start
            trial.started.fire()
        }
        guard let handle else { throw RuleFailure("`schedule` returned no handle") }
        return (trial, handle)
    }

    /// Races the disposal of `trial`'s action against its start, once its pacer runs.
    private mutating func race(
        _ trial: DisposalTrial, _ handle: any Disposable, on scheduler: any Scheduler, _ ctx: RuleContext, index: Int
    ) throws(RuleFailure) {
        let offset = trial.offset
        try ctx.spinUntil(trial.pacerStarted, on: scheduler, "pacer \(index) started")
        // The disposing thread watches for the start flat out: sharing the worker's core, it
        // would keep the worker from running until each disposal had won, and nothing would race.
        if let core = trial.pacerCore.value, core == CorePinning.currentCore {
            if moved { CorePinning.unpinCurrentThread() }
            moved = CorePinning.moveCurrentThread(offCore: core)
        }
        // Read around the whole race (a read takes 40 to 90 µs, too long for inside it).
        if offset >= .zero { trial.interruptsBefore.value = baselineInterrupts(for: trial) }
        if offset < .zero {
            handle.dispose()
            trial.returned.value = ContinuousClock.now
            spin(.zero - offset)
            trial.goAt.value = ContinuousClock.now
            trial.go.fire()
        } else {
            trial.goAt.value = ContinuousClock.now
            trial.go.fire()
            spin(offset)
            handle.dispose()
            trial.returned.value = ContinuousClock.now
            trial.watch.value = PauseWatch.watch(upTo: DisposalTally.watched) { trial.started.hasFired }
            // Only a late start asks whether the worker's core was interrupted, and a read
            // costs as much as the rest of the trial: a start already seen in time needs none.
            if !trial.startedInTime {
                let reading = CoreInterrupts.now()
                trial.interruptsAfter.value = reading
                keep(reading, after: trial)
            }
        }
    }

    /// The cores' interrupts before `trial`'s race: the last reading while it is young and was
    /// taken since the worker came onto its core (the same thread has made no context switch
    /// since the pacer then running started, so no wake-up's interrupt lies between), or a
    /// fresh one. An older reading only widens the stretch in which an interrupt excuses a
    /// late start.
    private mutating func baselineInterrupts(for trial: DisposalTrial) -> CoreInterrupts? {
        if let baseline, let mark = trial.pacerStartMark.value, mark.thread == baseline.pacer.thread,
            mark.switches == baseline.pacer.switches, baseline.at.duration(to: .now) <= DisposalTally.baselineAge
        {
            return baseline.reading
        }
        let reading = CoreInterrupts.now()
        keep(reading, after: trial)
        return reading
    }

    /// Keeps `reading`, taken while `trial`'s pacer had started, as the next trials' baseline.
    private mutating func keep(_ reading: CoreInterrupts?, after trial: DisposalTrial) {
        baseline = trial.pacerStartMark.value.map { (reading, ContinuousClock.now, $0) }
    }

    /// Lets the disposing thread run on every core again.
    func finish() {
        if moved { CorePinning.unpinCurrentThread() }
    }
}

/// CAN-3's verdict over the trials so far: violations, suspects, excused and unjudged late
/// starts, and how many races were exercised.
///
/// A start after a disposal made while the action ahead still ran is a violation outright:
/// the order of events proves it, whatever the timing. A late start after a disposal that
/// raced the pick-up, with no evidence that the worker or the machine was held up, is a
/// *suspect*: the host of a virtual machine also stops one core alone, now and then (about
/// one pause in twenty on the CI machine, 5 to 60 µs); the guest counts about a quarter of
/// such stops as steal, which the worker's `ThreadMark`s read, and nothing counts the rest,
/// so one such start may be that. (Of a spinning thread's gaps over 10 µs there, three in
/// five came with an interrupt of its core, which is evidence; the rest are such stops.)
/// The second suspect is a violation. Suspects count only from rounds in which the suite's
/// own atomic-claim control, put through a trial after each of the subject's, had none: a
/// machine that stops running threads unseen (a test process full of parallel work did, 10
/// to 76 µs, twice in 8,000 trials) gives the control suspects too, and such a round is set
/// aside, not held against the subject. A check-then-run window of a few microseconds gives
/// tens of suspects in every round.
private struct DisposalTally {
    /// How much longer than an optimised build's the same steps take: unoptimised code (no
    /// inlining, every retain made) is several times slower over a pick-up, so a machine's
    /// unseen stops land in it more often; the sanitizer's build (unoptimised too) counts its
    /// own slowdown, which already covers that.
    static let slowdown: Double = {
        #if DEBUG
            max(4, ThreadSanitizerBuild.slowdown)
        #else
            ThreadSanitizerBuild.slowdown
        #endif
    }()
    /// How late a start may come on a worker that was not held up: a correct pick-up takes
    /// well under a microsecond, optimised.
    static let grace = Duration.microseconds(5) * slowdown
    /// The shortest gap in the disposing thread's reads of the clock that is a pause of the
    /// machine (its loop takes well under a microsecond).
    static let pause = Duration.microseconds(2) * slowdown
    /// How long the disposing thread watches for the start: later starts are unjudged.
    static let watched = Duration.microseconds(200) * slowdown
    /// How old a reading of the cores' interrupts a trial may compare against, when its pacer
    /// is told to return: a tenth of a 250 Hz timer's tick, so that an unrelated tick seldom
    /// excuses a late start.
    static let baselineAge = Duration.microseconds(400) * slowdown

    /// The index of this tally's first trial in the whole run, for the failure's words.
    let firstIndex: Int
    private(set) var trials = 0
    private(set) var exercised = 0
    private(set) var excused = 0
    private(set) var unjudged = 0
    private(set) var earlyStarts: [(index: Int, trial: DisposalTrial)] = []
    private(set) var suspects: [(index: Int, trial: DisposalTrial, watched: Duration)] = []

    init(firstIndex: Int = 0) { self.firstIndex = firstIndex }

    /// What one trial shows.
    enum Verdict {
        /// Not late, or it never ran.
        case inTime
        /// Started although it was disposed while the action ahead of it still ran.
        case startedAfterEarlyDisposal
        /// Started late on a worker that kept its core, while the machine kept running.
        case lateWithoutPause(watched: Duration)
        /// Late, with evidence the worker or the machine was held up.
        case excused
        /// Late, with no evidence either way.
        case unjudged
    }

    static func verdict(_ trial: DisposalTrial) -> Verdict {
        guard let start = trial.start.value, let returned = trial.returned.value else { return .inTime }
        // A start before the return ran ahead of its pacer: a scheduler with no FIFO (an actor
        // reached by unstructured tasks) may; that is ORD-1's business, not this rule's.
        guard start > returned else { return .inTime }
        if trial.offset < .zero, trial.pacerSawGo.value { return .startedAfterEarlyDisposal }
        if trial.startedInTime { return .inTime }
        switch trial.evidence.value ?? .unknown {
        case .preempted: return .excused
        case .unknown: return .unjudged
        case .notPreempted:
            if trial.workerInterrupted == true { return .excused }
            guard let watch = trial.watch.value, watch.covers(start) else { return .unjudged }
            return watch.longestGap >= pause
                ? .excused : .lateWithoutPause(watched: watch.from.duration(to: watch.until))
        }
    }

    mutating func add(_ trial: DisposalTrial) {
        defer { trials += 1 }
        let verdict = Self.verdict(trial)
        switch verdict {
        case .startedAfterEarlyDisposal: earlyStarts.append((firstIndex + trials, trial))
        case .lateWithoutPause(let watched): suspects.append((firstIndex + trials, trial, watched))
        case .excused: excused += 1
        case .unjudged: unjudged += 1
        case .inTime: break
        }
        if case .unjudged = verdict { return }
        if trial.raced { exercised += 1 }
    }

    /// Adds a round the control came through clean: all it shows counts.
    mutating func absorb(_ round: DisposalTally) {
        absorbViolations(round)
        exercised += round.exercised
        excused += round.excused
        unjudged += round.unjudged
        suspects += round.suspects
    }

    /// Adds a round set aside: only its starts after an early disposal count, which no stop
    /// of the machine explains.
    mutating func absorbViolations(_ round: DisposalTally) {
        trials += round.trials
        earlyStarts += round.earlyStarts
    }

    /// Why the rule fails, once the trials so far prove a violation: a start after an early
    /// disposal, or a second late start with no evidence in rounds the control came through
    /// clean.
    func failure() -> String? {
        let micro = { (duration: Duration) in Int((duration.timeInterval * 1e6).rounded()) }
        let tail =
            "in \(trials) trials (\(excused) late starts came while the worker or the machine was held up and were excused)"
        if let (index, trial) = earlyStarts.first {
            return
                "action #\(index) started although dispose() returned \(micro(.zero - trial.offset)) µs before the action ahead of it was told to return, so before the scheduler could pick it up; \(earlyStarts.count) such starts \(tail)"
        }
        guard suspects.count >= 2 else { return nil }
        let starts = suspects.prefix(2).map { index, trial, watched in
            "action #\(index) started \(micro(trial.lateness ?? .zero)) µs after dispose() returned (disposed \(micro(trial.offset)) µs after the action ahead of it was told to return; watched \(micro(watched)) µs)"
        }
        return
            "\(starts.joined(separator: ", and ")), each on the thread its pacer returned on, which kept its core since, while the disposing thread watched the clock and saw the machine run without a pause; \(suspects.count) such starts \(tail), and none in the same rounds of the suite's own atomic-claim control"
    }
}

/// One action of CAN-3 and its pacer: when each step happened, and whether the action's
/// thread was preempted before it started.
private final class DisposalTrial: Sendable {
    /// When the disposal comes relative to the pacer's word to return: negative is before.
    let offset: Duration
    let pacerStarted = Signal()
    let go = Signal()
    let started = Signal()
    let goAt = Box<ContinuousClock.Instant?>(nil)
    let pacerCore = Box<Int?>(nil)
    let pacerStartMark = Box<ThreadMark?>(nil)
    let pacerSawGo = Box(false)
    let pacerEnd = Box<ContinuousClock.Instant?>(nil)
    let start = Box<ContinuousClock.Instant?>(nil)
    let pacerMark = Box<ThreadMark?>(nil)
    let evidence = Box<ThreadMark.Evidence?>(nil)
    let returned = Box<ContinuousClock.Instant?>(nil)
    let watch = Box<PauseWatch?>(nil)
    let interruptsBefore = Box<CoreInterrupts?>(nil)
    let interruptsAfter = Box<CoreInterrupts?>(nil)

    init(offset: Duration) { self.offset = offset }

    /// Whether the core the pacer ran on took an interrupt between the disposing thread's
    /// readings around the race; nil when unknown.
    var workerInterrupted: Bool? {
        guard let core = pacerCore.value, let before = interruptsBefore.value, let after = interruptsAfter.value
        else { return nil }
        return after.interrupted(core, since: before)
    }

    /// How long after `dispose()` returned the action started, negative when before; nil if
    /// it never ran.
    var lateness: Duration? {
        guard let start = start.value, let returned = returned.value else { return nil }
        return returned.duration(to: start)
    }

    /// Whether the action has started, no later than ``DisposalTally/grace`` after
    /// `dispose()` returned: such a start is in time whatever the machine did.
    var startedInTime: Bool {
        guard started.hasFired, let lateness else { return false }
        return lateness <= DisposalTally.grace
    }

    /// Whether the disposal raced the worker's pick-up of the action: it came after the pacer
    /// returned, which it did within 10 µs of being told to.
    var raced: Bool {
        guard offset >= .zero, let goAt = goAt.value, let end = pacerEnd.value, let returned = returned.value else {
            return false
        }
        return goAt.duration(to: end) <= .microseconds(10) && end <= returned
    }
}
