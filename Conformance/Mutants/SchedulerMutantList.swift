import SchedulerConformance
import Schedulers

extension Mutants {
    static let current: [Mutant] = [
        mutant("current-not-set", "never sets the current scheduler", .cur1) { CurrentNotSetMutant($0) },
        mutant(
            "current-not-set-from-backlog", "actions that waited behind another run without the current scheduler",
            .cur1
        ) { CurrentNotSetFromBacklogMutant($0) },
        mutant("current-not-set-on-timers", "delayed actions run without the current scheduler", .cur2) {
            CurrentNotSetOnTimersMutant($0)
        },
        mutant("repeating-without-current", "repeating ticks run without the current scheduler", .cur3) {
            RepeatingWithoutCurrentMutant($0)
        },
        mutant("current-captured-at-schedule", "runs an action as the caller's current scheduler", .cur6) {
            CurrentCapturedAtScheduleMutant($0)
        },
        mutant(
            "concurrent-spill-without-current", "work spilling onto a second worker runs without the current scheduler",
            .cur7
        ) { ConcurrentSpillWithoutCurrentMutant($0) },
        faulty(FaultySubscriptionMutant.Fault.alwaysAsync, "never runs inline", .sub1) { FaultySubscriptionMutant($0) },
        faulty(FaultySubscriptionMutant.Fault.inlineWithoutCurrent, "runs inline with no current scheduler", .sub2) {
            FaultySubscriptionMutant($0)
        },
        faulty(
            FaultySubscriptionMutant.Fault.timersToBackground,
            "sends timers to the background inside a current scheduler", .sub3
        ) { FaultySubscriptionMutant($0) },
        faulty(
            FaultySubscriptionMutant.Fault.runsAsItself, "runs inline actions as itself, hiding the caller's scheduler",
            .sub4
        ) { FaultySubscriptionMutant($0) },
    ]

    static let recursion: [Mutant] = [
        mutant("stack-recursion", "recursion recurses on the stack", .rec7) { StackRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.doubleFirstRun, "queues the first run twice", .rec1) {
            FaultyRecursionMutant($0)
        },
        faulty(FaultyRecursionMutant.Fault.reentrant, "a reschedule during the block runs it inside itself", .rec2) {
            FaultyRecursionMutant($0)
        },
        faulty(
            FaultyRecursionMutant.Fault.concurrentEarlyRun,
            "on a concurrent queue, a second reschedule during the block starts a run at once", .rec2
        ) { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.lossyReschedule, "two reschedules give one run", .rec3) {
            FaultyRecursionMutant($0)
        },
        faulty(FaultyRecursionMutant.Fault.laterRescheduleLost, "a reschedule after the block returned is lost", .rec4)
        { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.mergesLaterReschedules, "two later reschedules give one run", .rec4) {
            FaultyRecursionMutant($0)
        },
        faulty(
            FaultyRecursionMutant.Fault.checksDisposalOnlyOnReschedule,
            "a run already queued still runs after dispose()", .rec5
        ) { FaultyRecursionMutant($0) },
        faulty(FaultyRecursionMutant.Fault.ignoresDisposal, "disposing a recursion does not stop it", .rec6) {
            FaultyRecursionMutant($0)
        },
    ]

    static let timers: [Mutant] = [
        mutant("early-timers", "fires timers at half their delay", .tim1) { EarlyTimersMutant($0) },
        mutant("early-by-rounding", "rounds deadlines down to 10 ms", .tim1) {
            EarlyByRoundingMutant($0)
        },
        mutant("late-timers", "fires timers 400 ms late", .tim2) { LateTimersMutant($0) },
        mutant("past-deadline-dropped", "a past deadline becomes centuries away", .tim3) {
            PastDeadlineDroppedMutant($0)
        },
        mutant("timers-in-insertion-order", "fires timers in the order they were added", .tim4) {
            TimersInInsertionOrderMutant($0)
        },
        mutant("repeating-early", "ticks every 0.8 intervals", .tim5) { RepeatingEarlyMutant($0) },
        mutant("repeating-fires-at-once", "runs the first tick when scheduled, then keeps the grid", .tim5) {
            RepeatingFiresAtOnceMutant($0)
        },
        mutant("repeating-compensates", "arms every tick after the third 2 ms before its grid point", .tim5) {
            RepeatingCompensatesMutant($0)
        },
        faulty(
            CatchesUpMissedTicksMutant.Catchup.everyMissedTick, "runs every tick a stall missed, back to back", .tim16
        ) {
            CatchesUpMissedTicksMutant($0)
        },
        faulty(CatchesUpMissedTicksMutant.Catchup.oneExtraRun, "runs twice after any stall, then the grid", .tim16) {
            CatchesUpMissedTicksMutant($0)
        },
        faulty(
            CatchesUpMissedTicksMutant.Catchup.spreadOut, "runs every missed tick, a quarter interval apart", .tim16
        ) { CatchesUpMissedTicksMutant($0) },
        mutant("refuses-short-intervals", "refuses a positive interval under a microsecond", .tim7) {
            RefusesShortIntervalsMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.zeroInterval, "turns a zero interval into 1 ms", .tim7) {
            RepairsRepeatingMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.negativeLeeway, "turns a negative leeway into zero", .tim8) {
            RepairsRepeatingMutant($0)
        },
        mutant("overflowing-intervals", "wraps huge intervals instead of refusing", .tim9) {
            OverflowingIntervalsMutant($0)
        },
        mutant("distant-future-wraps", "a far deadline wraps into the past", .tim10) {
            DistantFutureWrapsMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.hugeInterval, "clamps intervals over a day to 1 ms", .tim11) {
            RepairsRepeatingMutant($0)
        },
        mutant("repeating-drifts", "re-arms each tick from its own time plus three leeways", .tim12) {
            RepeatingDriftsMutant($0)
        },
        mutant("drifts-after-half", "keeps the grid for six ticks, then stretches each period by two leeways", .tim12) {
            DriftsAfterWarmupMutant($0, warmup: 6, stretchedByLeeways: 2)
        },
        mutant("rearms-from-action-end", "re-arms each tick an interval after its action returned", .tim12) {
            RearmsFromActionEndMutant($0)
        },
        // Declares the fixed delay it nearly keeps: each period two leeways longer than the
        // interval after the action returned, as a delay computed from a cached `now` is.
        mutant(
            "fixed-delay-stretched", "declares a fixed delay, but each period is two leeways longer", .tim12,
            declaring: .repeatPolicy(.fixedDelay)
        ) { RearmsFromActionEndMutant($0, stretchedByLeeways: 2) },
        mutant("period-stretched-by-leeway", "every period is the interval plus one leeway", .tim6) {
            PeriodStretchedByLeewayMutant($0)
        },
        mutant("drifts-after-warmup", "keeps the grid for three ticks, then stretches each period by one leeway", .tim6)
        { DriftsAfterWarmupMutant($0) },
        mutant("leeway-multiplied", "fires at the end of a window four leeways wide", .tim6) {
            LeewayMultipliedMutant($0)
        },
        mutant("fast-clock", "its clock runs 25 % fast, timers agreeing with it", .tim13) {
            FastClockMutant($0)
        },
        mutant(
            "wall-clock-deadlines", "keeps timers as wall-clock deadlines", .tim14, wallClockStep: MutantWallClock.step
        ) { WallClockDeadlinesMutant($0) },
        mutant("repeating-first-tick-late", "the first tick comes one interval after the start", .tim15) {
            RepeatingFirstTickLateMutant($0)
        },
    ]

    static let synchronous: [Mutant] = [
        mutant("deferring-immediate", "claims synchronous, runs later", .imm1) { DeferringImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.dropsRarely, "loses one action in 400", .imm2) { FaultyImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.defersNested, "defers nested actions until the outer one returns", .imm3) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.wakesEarly, "sleeps for the delay rounded down to 10 ms", .imm4) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.wakesAMillisecondEarly, "sleeps for the delay less a millisecond", .imm4
        ) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.acceptsRepeating, "accepts repeating and runs it once", .imm5) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.synchronousUnclaimed,
            "runs synchronously but claims cancellation instead of synchronous", .can5
        ) { FaultyImmediateMutant($0) },
        faulty(
            FaultyImmediateMutant.Fault.loopEndsInTwoSteps,
            "its recursion loop ends in two steps: a reschedule from another thread between them is lost", .rec4
        ) { FaultyImmediateMutant($0) },
        faulty(FaultyTrampolineMutant.Fault.eager, "runs nested actions re-entrantly", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.lifo, "drains its queue last-in first-out", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.inlineRecursion, "a recursion's first run jumps the queue", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.ignoresDisposal, "nested handles are not checked", .trm2) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.staysBusy, "stays busy after a drain that ran something", .trm3) {
            FaultyTrampolineMutant($0)
        },
        mutant("shared-trampoline", "one queue for all threads", .trm4) { SharedTrampolineMutant($0) },
        faulty(FaultyTrampolineMutant.Fault.recursiveDrain, "drains by recursion", .trm5) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.sharedBusyFlag, "per-thread queues, one shared busy flag", .trm6) {
            FaultyTrampolineMutant($0)
        },
    ]

    static let virtualTime: [Mutant] = [
        faulty(FaultyVirtualMutant.Fault.runsEagerly, "runs a plain action at once when nothing is pending", .vt1) {
            FaultyVirtualMutant($0)
        },
        faulty(
            FaultyVirtualMutant.Fault.recursionLeavesPendingRun,
            "a disposed recursion leaves its queued run for a step",
            .rec5
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.recursionRecordsHandleLate,
            """
            a recursion's run records its handle after the disposed check: a dispose between them leaves the run for \
            a step
            """,
            .rec5
        ) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.emptyStepMovesTime, "an empty step moves time", .vt2) {
            FaultyVirtualMutant($0)
        },
        faulty(FaultyVirtualMutant.Fault.stepRunsTies, "a step also runs a tie", .vt3) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.unstableTies, "equal times run last-in first", .vt4) {
            FaultyVirtualMutant($0)
        },
        faulty(
            FaultyVirtualMutant.Fault.repeatingFromTarget, "repeating ticks are re-queued from the advance target", .vt5
        ) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.advanceExclusive, "advance-to is exclusive", .vt6) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.nowIsTarget, "now is the advance target during actions", .vt7) {
            FaultyVirtualMutant($0)
        },
        faulty(FaultyVirtualMutant.Fault.advanceSnapshot, "an advance runs only what was pending when it began", .vt8) {
            FaultyVirtualMutant($0)
        },
        faulty(FaultyVirtualMutant.Fault.unstableWhenLarge, "ties go last-in first once 64 entries are queued", .vt9) {
            FaultyVirtualMutant($0)
        },
        faulty(FaultyVirtualMutant.Fault.movesBackwards, "advancing to an earlier time moves the clock back", .vt10) {
            FaultyVirtualMutant($0)
        },
        faulty(
            FaultyVirtualMutant.Fault.insertionsAfterBatch, "work added during an advance waits for the due batch",
            .vt11
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.clampsToTarget,
            "work for the present during an advance is stamped with its target", .vt12
        ) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.instantStepOverruns, "steps by instants, but a step runs two", .vt13) {
            FaultyVirtualMutant($0)
        },
        faulty(
            FaultyVirtualMutant.Fault.singleStepUnclaimed, "steps one action at a time but does not claim singleStep",
            .vt13
        ) { FaultyVirtualMutant($0) },
    ]

    static let threadSafety: [Mutant] = [
        mutant("lossy", "loses one action in 97", .thr1) { LossyMutant($0) },
        mutant("thread-state-never-freed", "keeps per-thread state under a pthread key without a destructor", .thr6) {
            ThreadStateNeverFreedMutant($0)
        },
        mutant("thread-registry", "keeps an entry per calling thread in a registry nobody prunes", .thr6) {
            ThreadRegistryMutant($0)
        },
        mutant("lossy-timer-registry", "registers repeating timers in two critical sections, losing racing ones", .thr1)
        {
            LossyTimerRegistryMutant($0)
        },
        mutant("doubles-across-threads", "runs one action in 300 scheduled from another thread twice", .thr1) {
            DoublesAcrossThreadsMutant($0)
        },
        mutant("runs-pending-twice-on-release", "on release runs pending work that its queue runs too", .thr2) {
            RunsPendingTwiceOnReleaseMutant($0)
        },
        mutant("keeps-some-closures", "keeps one closure in 500 forever", .thr3) {
            KeepsSomeClosuresMutant($0)
        },
        mutant("serial-claiming-concurrency", "claims concurrency, runs serially", .thr4) {
            SerialClaimingConcurrencyMutant($0)
        },
        mutant("serialised-by-lock", "a concurrent queue, every action under one lock", .thr4) {
            SerialisedByLockMutant($0)
        },
        mutant("lane-per-caller", "one serial lane per calling thread", .thr4) { LanePerCallerMutant($0) },
    ]
}
