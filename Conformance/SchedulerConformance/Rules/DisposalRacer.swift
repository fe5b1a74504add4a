import Foundation
import SchedulerProbes
import Schedulers

/// Runs CAN-3's trials: a pacer and an action on a serial scheduler, the action disposed
/// before or after the pacer is told to return, the disposing thread watching for its start.
struct DisposalRacer {
    /// How many trials follow one another on the worker without a pause.
    static let block = 10
    let pacerBound: Duration
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
        // The disposing thread is not moved off the worker's core when it finds itself there:
        // the kernel spreads the two on a quiet machine, and on a loaded one each move queued
        // it behind another core's work, so that trials raced less than with the two left be.
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
}
