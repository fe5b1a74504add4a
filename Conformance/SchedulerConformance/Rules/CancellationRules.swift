import Foundation
import SchedulerProbes
import Schedulers

extension RuleCatalogue {
    static let cancellation: [Rule] = [
        Rule(
            .can1, "disposed before start, from any thread: never runs, and its neighbours still run",
            requires: .cancellation, anyOf: [.serial, .virtualTime], excludes: .synchronous,
            rationale:
                "Disposal is how operators stop pending work; a disposed action that runs anyway delivers events after unsubscription.",
            hint:
                "the action checks its own handle's disposed flag before running, on every path; disposal marks that one entry (not a slot by index) and works from any thread."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            // Held, so every action below is pending when it is disposed; half are disposed
            // from the rule's thread, half from another one, while the worker is parked.
            let gate = try ctx.hold(scheduler)
            let ran = Recorder<Int>()
            let handles = Box<[Int: any Disposable]>([:])
            for index in 0..<40 {
                let handle = scheduler.schedule { ran.record(index) }
                handles.update { $0[index] = handle }
            }
            let later = Signal()
            scheduler.schedule { later.fire() }
            let disposed = Set(stride(from: 0, to: 40, by: 4)).union(stride(from: 1, to: 40, by: 4))
            for index in disposed.sorted() where index % 4 == 0 {
                try ctx.unwrap(handles.value[index], "`schedule` returned no handle").dispose()
            }
            try ctx.fromAnotherThreadIfAllowed { () throws(RuleFailure) in
                for index in disposed.sorted() where index % 4 == 1 {
                    try ctx.unwrap(handles.value[index], "`schedule` returned no handle").dispose()
                }
            }
            gate.fire()
            try ctx.waitFor(later, on: scheduler, "an action scheduled after the disposed ones ran")
            try ctx.quiesce(scheduler)
            let observed = ran.all
            let wrongly = observed.filter { disposed.contains($0) }
            try ctx.expect(
                wrongly.isEmpty,
                "\(wrongly.count) disposed actions ran (first: #\(wrongly.first ?? 0), disposed from \((wrongly.first ?? 0) % 4 == 0 ? "the scheduling thread" : "another thread"))"
            )
            let kept = (0..<40).filter { !disposed.contains($0) }
            try ctx.expect(observed == kept, "the actions that were not disposed ran as \(observed), expected \(kept)")
        },
        Rule(
            .can2, "dispose is idempotent and `isDisposed` reports it",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale:
                "Several owners may dispose the same handle; the second call must be harmless and the state readable.",
            hint: "`dispose()` is guarded by an atomic flag and `isDisposed` reads that flag."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let handle = try ctx.unwrap(scheduler.schedule {}, "`schedule` returned no handle")
            try ctx.expect(!handle.isDisposed, "a pending handle reports isDisposed before dispose()")
            handle.dispose()
            handle.dispose()
            try ctx.expect(handle.isDisposed, "isDisposed is false after dispose()")
            gate.fire()
            try ctx.quiesce(scheduler)
            handle.dispose()
            try ctx.expect(handle.isDisposed, "isDisposed changed after the scheduler moved on")
        },
        Rule(
            .can3, "a dispose racing the start: ran whole or never started",
            requires: [.cancellation, .asynchronous, .serial], excludes: .virtualTime,
            rationale:
                "After `dispose()` returns, an action that had not started must never start; one that started runs to its end.",
            hint:
                "the disposed check and the start are one atomic step (a compare-and-swap) made when the action is about to run, not a check followed by a later start, nor one made for a whole batch or before the action ahead of it returned, nor one on another thread than the start.",
            needsIdleCores: true
        ) { ctx throws(RuleFailure) in
            try disposeRacingTheStart(ctx)
        },
        Rule(
            .can4, "an action may dispose its own handle",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale: "Self-cancelling work (a one-shot that tears itself down) must neither deadlock nor crash.",
            hint: "no lock is held while the action runs, so `dispose()` from inside it cannot deadlock."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let own = Box<(any Disposable)?>(nil)
            let ran = Box(0)
            let done = Signal()
            let handle = scheduler.schedule {
                ran.update { $0 += 1 }
                own.value?.dispose()
                done.fire()
            }
            own.value = try ctx.unwrap(handle, "`schedule` returned no handle")
            gate.fire()
            try ctx.waitFor(done, on: scheduler, "the self-disposing action ran")
            try ctx.quiesce(scheduler)
            try ctx.expect(ran.value == 1, "ran \(ran.value) times")
            try ctx.expect(own.value?.isDisposed == true, "the handle is not disposed")
            let after = Signal()
            scheduler.schedule { after.fire() }
            try ctx.waitFor(after, on: scheduler, "an action after the self-disposing one ran")
        },
        Rule(
            .can5, "a disposed delayed action never fires",
            requires: [.cancellation, .timers], excludes: .synchronous,
            rationale: "Timeouts are cancelled all the time; one that fires anyway reports a spurious timeout.",
            hint:
                "the delayed path checks the disposed flag too (a `dispatch_after` block must check it before running)."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let fired = Box(false)
            let deadline = try ctx.deadline(.milliseconds(20), on: scheduler)
            let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { fired.value = true }
            }
            try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
            try ctx.waitPast(deadline, on: scheduler)
            try ctx.expect(!fired.value, "the disposed delayed action fired")
        },
        Rule(
            .can6, "a repeating action disposed while no tick runs never ticks again",
            requires: .repeating, anyOf: [.serial, .virtualTime],
            rationale:
                "Polling and heartbeats are stopped by disposal; after `dispose()` returns, not one more tick may start.",
            hint:
                "disposal cancels the timer source (or marks the entry so it is not re-armed), and a tick already queued checks the flag before running."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let interval = Duration.milliseconds(5)
            // Twice: once disposed from another thread while the scheduler is held by a plain
            // action (so no tick is in flight and ticks fall due meanwhile), once from inside
            // the tick itself. Either way, nothing may tick after `dispose()` returned.
            for fromOutside in [true, false] {
                let ticks = Box(0)
                let disposed = Box(false)
                let afterDispose = Box(0)
                let own = Box<(any Disposable)?>(nil)
                let third = Signal()
                let start = try ctx.deadline(interval, on: scheduler)
                let handle = try ctx.attempt("repeating") { () throws(SchedulerError) in
                    try scheduler.schedule(at: start, repeatingEvery: interval, leeway: .zero) {
                        if disposed.value { afterDispose.update { $0 += 1 } }
                        let tick = ticks.update {
                            $0 += 1
                            return $0
                        }
                        if tick == 3 {
                            if !fromOutside, let handle = own.value {
                                handle.dispose()
                                disposed.value = true
                            }
                            third.fire()
                        }
                    }
                }
                own.value = handle
                try ctx.waitFor(third, on: scheduler, "three ticks")
                if fromOutside {
                    let gate = try ctx.hold(scheduler)
                    // Let more ticks fall due while held: they must be dropped, not run later.
                    if ctx.canHold { Thread.sleep(forTimeInterval: (interval * 3).timeInterval) }
                    try ctx.fromAnotherThreadIfAllowed { handle.dispose() }
                    disposed.value = true
                    gate.fire()
                }
                try ctx.waitPast(try ctx.deadline(interval * 10, on: scheduler), on: scheduler)
                try ctx.expect(
                    afterDispose.value == 0,
                    "\(afterDispose.value) ticks started after dispose() returned (\(fromOutside ? "disposed from another thread while no tick ran" : "disposed inside a tick"))"
                )
                try ctx.expect(handle.isDisposed, "isDisposed is false after dispose()")
            }
        },
        Rule(
            .can7, "disposing one timer leaves another alone",
            requires: [.cancellation, .timers], excludes: .synchronous,
            rationale:
                "Handles are independent: cancelling one timeout must not cancel a neighbour sharing a timer queue.",
            hint: "disposal targets only its own entry (no shared timer source cancelled, no wrong index removed)."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let deadline = try ctx.deadline(.milliseconds(10), on: scheduler)
            let first = Box(false)
            let second = Signal()
            let handle = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { first.value = true }
            }
            _ = try ctx.attempt("schedule(at:)") { () throws(SchedulerError) in
                try scheduler.schedule(at: deadline) { second.fire() }
            }
            try ctx.unwrap(handle, "`schedule(at:)` returned no handle").dispose()
            try ctx.waitFor(second, on: scheduler, "the timer that was not disposed fired")
            try ctx.waitPast(deadline, on: scheduler)
            try ctx.expect(!first.value, "the disposed timer fired")
        },
        Rule(
            .can8, "a repeating timer keeps firing when the caller drops its handle",
            requires: .repeating, excludes: .cancelsWhenReleased,
            rationale:
                "Only disposal stops a timer; ReactiveCocoa users hit timers that died silently when the handle was released.",
            hint:
                "the timer (or its source) is kept alive by the scheduler or by its own handler, not only by the returned handle."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let weak = WeakDisposable()
            let ticks = Box(0)
            let third = Signal()
            do {
                let start = try ctx.deadline(.milliseconds(5), on: scheduler)
                weak.object = try ctx.attempt("repeating") { () throws(SchedulerError) in
                    try scheduler.schedule(at: start, repeatingEvery: .milliseconds(5), leeway: .zero) {
                        guard
                            ticks.update({
                                $0 += 1
                                return $0
                            }) == 3
                        else { return }
                        // Nobody holds the handle now; reach it weakly to clean up.
                        weak.object?.dispose()
                        third.fire()
                    }
                }
            }
            try ctx.waitFor(third, on: scheduler, "three ticks after the handle was dropped")
        },
        Rule(
            .can9, "an action's closure is released after it ran, even while its handle is held",
            anyOf: [.serial, .virtualTime, .synchronous, .trampoline],
            rationale:
                "Whatever an action captured (a subscriber, a buffer) must be freed once it ran, or every scheduled action leaks; users keep handles for a subscription's whole life, so a handle that keeps the closure leaks it just the same.",
            hint:
                "the scheduler drops its reference to the closure after calling it (no cache of past actions, no cycle through the handle); the handle of a plain, delayed or recursive action does not keep the closure once it ran, nor a disposed repeating timer's handle its tick closure."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let live = LiveCounter()
            do {
                let token = live.token()
                scheduler.schedule { blackHole(token) }
            }
            // Twice: a scheduler may release a batch of finished work only after the batch
            // (the first sentinel's included) is done, as SwiftNIO's event loop does.
            try ctx.quiesce(scheduler)
            try ctx.quiesce(scheduler)
            try ctx.expectReleased(live, "the closure is still alive after it ran")
            try closuresReleasedWhileHandlesHeld(ctx)
        },
        Rule(
            .can10, "a disposed action's closure is released once its handle is gone",
            requires: .cancellation, anyOf: [.serial, .virtualTime],
            rationale: "Cancelling must free what the action captured, at the latest when the scheduler reaches it.",
            hint: "disposal (or the skipped run) clears the stored closure; the handle does not keep it."
        ) { ctx throws(RuleFailure) in
            let scheduler = ctx.makeScheduler()
            let gate = try ctx.hold(scheduler)
            let live = LiveCounter()
            // The handle is dropped too: where the handle is the work (a DispatchWorkItem, an
            // Operation), it may own the closure for as long as the caller keeps it.
            do {
                let token = live.token()
                let handle = scheduler.schedule { blackHole(token) }
                try ctx.unwrap(handle, "`schedule` returned no handle").dispose()
            }
            gate.fire()
            try ctx.quiesce(scheduler)
            try ctx.quiesce(scheduler)
            try ctx.expectReleased(live, "the disposed action's closure is still alive once the handle is gone")
        },
    ]
}

/// CAN-3. A start that comes after `dispose()` returned is a violation unless the suite has
/// evidence that the worker was held up in between: a correct scheduler claims an action in
/// one atomic step and calls it at once, so its start trails its claim by well under a
/// microsecond unless the thread is stopped there. Two kinds of evidence are read, and no
/// share of late starts is put down to luck:
/// - the worker's own context switches since the pacer ahead of the action returned
///   (`ThreadMark`s taken by the pacer as it ends and by the action as it starts: on another
///   thread than its pacer's, a start has no evidence);
/// - pauses of the whole machine, which a virtual machine's host makes without the guest
///   counting them: the disposing thread watches the clock from its core until the action
///   starts (`PauseWatch`), and a gap in its reads means both cores stood still.
/// A late start with neither, on a worker that kept its core and a machine that kept
/// running, is a suspect (see `DisposalTally`). One that no watch covered, or that ran on
/// another thread than its pacer, is unjudged and does not count as exercised.
///
/// Each action follows a pacer that spins until the disposing thread tells it to return.
/// Three trials in four dispose 0 to 40 µs after that word (the race with the worker's
/// pick-up of the action); one in four disposes 20 to 60 µs before it, while the pacer still
/// runs, and then any start at all is a violation, whatever the timing (a check made early,
/// for a whole batch or ahead of time, must not decide). A pick-up race counts as exercised
/// when the pacer returned within 10 µs of the word (both threads were running) and the
/// disposal came after it. The rule runs until 4,000 races were exercised with evidence (up
/// to 30,000 trials or 20 s, else inconclusive) and stops at the first violation.
///
/// Only serial schedulers are judged: a concurrent one cannot be paced, and its pool threads
/// run other work between the suite's actions, so nothing could bracket its pick-up.
private func disposeRacingTheStart(_ ctx: RuleContext) throws(RuleFailure) {
    let scheduler = ctx.makeScheduler()
    let wanted = 4_000
    let round = 1_000
    var random = SystemRandomNumberGenerator()
    var tally = DisposalTally()
    // The control: the reference queue's atomic claim, put through the same trials at the
    // same moments (one control trial after each of the subject's). Its late starts with no
    // evidence are the machine's invisible stops; while it has none, the subject's are its own.
    let control = QueueScheduler(name: "CAN-3 control")
    var controlTally = DisposalTally()
    var racer = DisposalRacer(pacerBound: min(ctx.timing.mustHappen, .milliseconds(100)))
    defer { racer.finish() }
    // Bounded in time too: on a machine so loaded that the two threads rarely run at once,
    // every trial costs a watch and a pacer spin, and the rule gives up (inconclusive) well
    // inside its timeout.
    let budget = ContinuousClock.now + .seconds(20)
    while tally.exercised < wanted && tally.trials < 30 * round && ContinuousClock.now < budget {
        var trials: [DisposalTrial] = []
        var controls: [DisposalTrial] = []
        trials.reserveCapacity(round)
        controls.reserveCapacity(round)
        for _ in 0..<round {
            trials.append(try racer.trial(on: scheduler, ctx, index: tally.trials + trials.count, using: &random))
            controls.append(
                try racer.trial(on: control, ctx, index: controlTally.trials + controls.count, using: &random))
        }
        try ctx.settle(scheduler)
        try ctx.settle(scheduler)
        try ctx.settle(control)
        for trial in trials { tally.add(trial) }
        for trial in controls { controlTally.add(trial) }
        if let failure = tally.failure(control: controlTally) { throw RuleFailure(failure) }
    }
    try ctx.requireExercised(
        tally.suspects.count < 2,
        "\(tally.suspects.count) late starts with no evidence of a hold-up, but the suite's own atomic-claim control, run through the same trials at the same moments, had \(controlTally.suspects.count): this machine stops a running thread without any counter showing it, so these late starts cannot be told from that"
    )
    try ctx.requireExercised(
        tally.exercised >= wanted,
        "only \(tally.exercised) of \(tally.trials) disposals raced the start of their action with evidence of who ran (\(tally.unjudged) late starts on threads with no evidence): the worker and the disposing thread rarely ran at once"
    )
}

/// Runs CAN-3's trials: a pacer and an action on a serial scheduler, the action disposed
/// before or after the pacer is told to return, the disposing thread watching for its start.
private struct DisposalRacer {
    let pacerBound: Duration
    /// Whether the disposing thread was moved off a core (and must be let back on it).
    private var moved = false

    init(pacerBound: Duration) { self.pacerBound = pacerBound }

    /// One trial on `scheduler`; the caller settles the scheduler before reading it.
    mutating func trial(
        on scheduler: any Scheduler, _ ctx: RuleContext, index: Int, using random: inout SystemRandomNumberGenerator
    ) throws(RuleFailure) -> DisposalTrial {
        let early = Int.random(in: 0..<4, using: &random) == 0
        let offset = Duration.nanoseconds(
            early ? -Int64.random(in: 20_000...60_000, using: &random) : Int64.random(in: 0...40_000, using: &random))
        let trial = DisposalTrial(offset: offset)
        let pacerBound = self.pacerBound
        scheduler.schedule {
            trial.pacerCore.value = CorePinning.currentCore
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
        try ctx.spinUntil(trial.pacerStarted, on: scheduler, "pacer \(index) started")
        // The disposing thread watches for the start flat out: sharing the worker's core, it
        // would keep the worker from running until each disposal had won, and nothing would race.
        if let core = trial.pacerCore.value, core == CorePinning.currentCore {
            if moved { CorePinning.unpinCurrentThread() }
            moved = CorePinning.moveCurrentThread(offCore: core)
        }
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
        }
        return trial
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
/// one pause in twenty on the CI machine, 5 to 60 µs), and nothing in the guest counts it,
/// so one such start may be that. The second suspect in a run is a violation, provided the
/// suite's own atomic-claim control, put through a trial after each of the subject's, had
/// none: a machine that stops running threads unseen (a test process full of parallel work
/// did, 10 to 76 µs, twice in 8,000 trials) gives the control suspects too, and the rule is
/// then inconclusive. A check-then-run window of a few microseconds gives tens per run.
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

    private(set) var trials = 0
    private(set) var exercised = 0
    private(set) var excused = 0
    private(set) var unjudged = 0
    private(set) var earlyStarts: [(index: Int, trial: DisposalTrial)] = []
    private(set) var suspects: [(index: Int, trial: DisposalTrial, watched: Duration)] = []

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
        guard returned.duration(to: start) > grace else { return .inTime }
        switch trial.evidence.value ?? .unknown {
        case .preempted: return .excused
        case .unknown: return .unjudged
        case .notPreempted:
            guard let watch = trial.watch.value, watch.covers(start) else { return .unjudged }
            return watch.longestGap >= pause
                ? .excused : .lateWithoutPause(watched: watch.from.duration(to: watch.until))
        }
    }

    mutating func add(_ trial: DisposalTrial) {
        defer { trials += 1 }
        let verdict = Self.verdict(trial)
        switch verdict {
        case .startedAfterEarlyDisposal: earlyStarts.append((trials, trial))
        case .lateWithoutPause(let watched): suspects.append((trials, trial, watched))
        case .excused: excused += 1
        case .unjudged: unjudged += 1
        case .inTime: break
        }
        if case .unjudged = verdict { return }
        if trial.raced { exercised += 1 }
    }

    /// Why the rule fails, once the trials so far prove a violation: a start after an early
    /// disposal, or a second late start with no evidence while the control had none.
    func failure(control: DisposalTally) -> String? {
        let micro = { (duration: Duration) in Int((duration.timeInterval * 1e6).rounded()) }
        let tail =
            "in \(trials) trials (\(excused) late starts came while the worker or the machine was held up and were excused)"
        if let (index, trial) = earlyStarts.first {
            return
                "action #\(index) started although dispose() returned \(micro(.zero - trial.offset)) µs before the action ahead of it was told to return, so before the scheduler could pick it up; \(earlyStarts.count) such starts \(tail)"
        }
        guard suspects.count >= 2, control.suspects.isEmpty else { return nil }
        let starts = suspects.prefix(2).map { index, trial, watched in
            "action #\(index) started \(micro(trial.lateness ?? .zero)) µs after dispose() returned (disposed \(micro(trial.offset)) µs after the action ahead of it was told to return; watched \(micro(watched)) µs)"
        }
        return
            "\(starts.joined(separator: ", and ")), each on the thread its pacer returned on, which kept its core since, while the disposing thread watched the clock and saw the machine run without a pause; \(suspects.count) such starts \(tail), and none in as many trials of the suite's own atomic-claim control"
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
    let pacerSawGo = Box(false)
    let pacerEnd = Box<ContinuousClock.Instant?>(nil)
    let start = Box<ContinuousClock.Instant?>(nil)
    let pacerMark = Box<ThreadMark?>(nil)
    let evidence = Box<ThreadMark.Evidence?>(nil)
    let returned = Box<ContinuousClock.Instant?>(nil)
    let watch = Box<PauseWatch?>(nil)

    init(offset: Duration) { self.offset = offset }

    /// How long after `dispose()` returned the action started, negative when before; nil if
    /// it never ran.
    var lateness: Duration? {
        guard let start = start.value, let returned = returned.value else { return nil }
        return returned.duration(to: start)
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
