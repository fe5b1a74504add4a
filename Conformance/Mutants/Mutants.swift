import SchedulerConformance
import Schedulers

/// Deliberately broken schedulers: the suite must reject every one of them, every time.
///
/// Each mutant is wrong in one way and claims what a correct scheduler of its kind claims,
/// so only the rule written for its fault can tell. Many faults are rare or conditional
/// (one action in 500, only across threads, only while an action is slow, only for work
/// already queued), so the rule must force the situation rather than wait for it.
public enum Mutants {
    /// Every mutant that a correct suite kills. The hanging and crashing ones are separate:
    /// they test the harness's isolation, not the rules.
    public static let all: [Mutant] =
        ordering + optimisedOnly + cancellation + current + recursion + timers + synchronous + virtualTime
        + threadSafety + clocks + executors

    private static let ordering: [Mutant] = [
        mutant("lifo", "runs queued actions last-in first-out", .ord1) { LIFOMutant("lifo") },
        mutant("reorders-rarely", "swaps one action in 300 with the next", .ord1) {
            ReordersRarelyMutant("reorders-rarely")
        },
        mutant("overlapping", "claims serial, runs each action on a thread of its own", .ord2) { OverlappingMutant() },
        mutant("overlaps-rarely", "sends one action in 500 to a concurrent queue", .ord2) {
            OverlapsRarelyMutant("overlaps-rarely")
        },
        mutant("overlaps-when-slow", "runs new work elsewhere while an action is slow", .ord2) {
            OverlapsWhenSlowMutant("overlaps-when-slow")
        },
        mutant(
            "releases-next-when-contended",
            "when two threads' calls overlap, the later action lets the next start beside it", .ord2
        ) { ReleasesNextWhenContendedMutant("releases-next-when-contended") },
        mutant("per-thread-lanes", "one FIFO lane per calling thread, drained in turn", .ord6) {
            PerThreadLanesMutant("per-thread-lanes")
        },
        mutant("contended-overflow", "under contention an action waits on an overflow list behind later ones", .ord3) {
            ContendedOverflowMutant("contended-overflow")
        },
        mutant("reentrant", "runs nested actions inline", .ord4) { ReentrantMutant("reentrant") },
        mutant("inline-when-idle", "runs inline on the caller's thread when nothing is queued", .ord5) {
            InlineWhenIdleMutant("inline-when-idle")
        },
        mutant("inline-due-deadline", "runs a `schedule(at:)` whose deadline has come inline", .ord5) {
            InlineDueDeadlineMutant("inline-due-deadline")
        },
        mutant(
            "repeating-first-tick-inline", "a repeating timer with a past start runs its first tick inside the call",
            .ord5
        ) { RepeatingFirstTickInlineMutant("repeating-first-tick-inline") },
        mutant("recursive-first-run-inline", "`scheduleRecursive` runs the first run inside the call", .ord5) {
            RecursiveFirstRunInlineMutant("recursive-first-run-inline")
        },
        mutant("inline-on-own-queue", "a due `schedule(at:)` from its own action runs inline", .ord5) {
            InlineOnOwnQueueMutant("inline-on-own-queue")
        },
    ]

    /// Mutants whose fault window shows only in an optimised build, while `make
    /// conformance-mutants` (release) catches them every time: a debug build of the drain loop
    /// is slow enough around its flag that ORD-2 never saw two drains overlap in `make test`;
    /// and CAN-3 allows a debug build's pick-up four times the time (20 µs), which leaves a
    /// 30 µs window in one action of 300 too few late starts to judge in every run.
    #if DEBUG
        private static let optimisedOnly: [Mutant] = []
    #else
        private static let optimisedOnly: [Mutant] = [
            faulty(
                DrainLoopMutant.Fault.lingersAfterRelease, "an idle drain lingers for work without owning the drain",
                .ord2
            ) { DrainLoopMutant($0) },
            faulty(
                DrainLoopMutant.Fault.racyDrainFlag, "two producers finding it idle at once both start a drain", .ord2
            ) { DrainLoopMutant($0) },
            mutant(
                "dispose-race-rare", "one action in 300 pauses 30 µs between its disposal check and its start", .can3
            ) { DisposeRaceRareMutant("dispose-race-rare") },
        ]
    #endif

    private static let cancellation: [Mutant] = [
        mutant("ignores-disposal", "handles are not connected to actions", .can1) {
            IgnoresDisposalMutant("ignores-disposal")
        },
        mutant("dispose-checked-after", "checks disposal after running", .can1) {
            DisposeCheckedAfterMutant("dispose-checked-after")
        },
        mutant("disposes-neighbour", "disposing slot k also disposes slot k + 1", .can1) {
            DisposesNeighbourMutant("disposes-neighbour")
        },
        mutant("dispose-hops-to-queue", "a dispose from another thread is queued behind the action", .can1) {
            DisposeHopsToQueueMutant("dispose-hops-to-queue")
        },
        mutant("is-disposed-lies", "isDisposed is always false", .can2) { IsDisposedLiesMutant("is-disposed-lies") },
        mutant("dispose-toggles", "a second dispose() revives the action", .can2) {
            DisposeTogglesMutant("dispose-toggles")
        },
        mutant("dispose-race-window", "checks disposal, then waits 100 µs before running", .can3) {
            DisposeRaceWindowMutant("dispose-race-window")
        },
        faulty(
            DrainLoopMutant.Fault.staleBatchCheck,
            "checks a whole batch for disposal when it takes it, not each entry before it runs", .can3
        ) { DrainLoopMutant($0) },
        mutant("self-dispose-skips-next", "disposing the running action's own handle skips the next action", .can4) {
            SelfDisposeSkipsNextMutant("self-dispose-skips-next")
        },
        mutant("timer-disposal-ignored", "delayed actions' handles are not connected", .can5) {
            TimerDisposalIgnoredMutant("timer-disposal-ignored")
        },
        mutant("repeating-ignores-disposal", "repeating timers never stop", .can6) {
            RepeatingIgnoresDisposalMutant("repeating-ignores-disposal")
        },
        mutant("repeating-extra-tick", "a repeating tick checks disposal after running", .can6) {
            RepeatingExtraTickMutant("repeating-extra-tick")
        },
        mutant("repeating-dispose-deferred", "repeating disposal is queued behind a due tick", .can6) {
            RepeatingDisposeDeferredMutant("repeating-dispose-deferred")
        },
        mutant("shared-deadline-timer", "timers due at the same time share one handle", .can7) {
            SharedDeadlineTimerMutant("shared-deadline-timer")
        },
        mutant("repeating-dies-when-dropped", "repeating timers stop when the handle is dropped", .can8) {
            RepeatingDiesWhenDroppedMutant("repeating-dies-when-dropped")
        },
        mutant("keeps-closures", "keeps every closure forever", .can9) { KeepsClosuresMutant("keeps-closures") },
        mutant("one-shot-handle-keeps-closure", "a plain action's handle keeps its closure after it ran", .can9) {
            OneShotHandleKeepsClosureMutant("one-shot-handle-keeps-closure")
        },
        mutant("delayed-handle-keeps-closure", "a delayed action's handle keeps its closure after it ran", .can9) {
            DelayedHandleKeepsClosureMutant("delayed-handle-keeps-closure")
        },
        mutant("disposed-timer-keeps-tick", "a disposed repeating timer's handle keeps the tick closure", .can9) {
            DisposedTimerKeepsTickMutant("disposed-timer-keeps-tick")
        },
        mutant("recursive-handle-keeps-block", "a recursion's handle keeps the block after the recursion ended", .can9)
        { RecursiveHandleKeepsBlockMutant("recursive-handle-keeps-block") },
        mutant("keeps-disposed-closures", "disposed handles, each holding its closure, are kept forever", .can10) {
            KeepsDisposedClosuresMutant("keeps-disposed-closures")
        },
    ]

    private static let current: [Mutant] = [
        mutant("current-not-set", "never sets the current scheduler", .cur1) { CurrentNotSetMutant("current-not-set") },
        mutant(
            "current-not-set-from-backlog", "actions that waited behind another run without the current scheduler",
            .cur1
        ) { CurrentNotSetFromBacklogMutant("current-not-set-from-backlog") },
        mutant("current-not-set-on-timers", "delayed actions run without the current scheduler", .cur2) {
            CurrentNotSetOnTimersMutant("current-not-set-on-timers")
        },
        mutant("repeating-without-current", "repeating ticks run without the current scheduler", .cur3) {
            RepeatingWithoutCurrentMutant("repeating-without-current")
        },
        mutant("current-captured-at-schedule", "runs an action as the caller's current scheduler", .cur6) {
            CurrentCapturedAtScheduleMutant("current-captured-at-schedule")
        },
        mutant(
            "concurrent-spill-without-current", "work spilling onto a second worker runs without the current scheduler",
            .cur7
        ) { ConcurrentSpillWithoutCurrentMutant() },
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

    private static let recursion: [Mutant] = [
        mutant("stack-recursion", "recursion recurses on the stack", .rec7) { StackRecursionMutant() },
        faulty(FaultyRecursionMutant.Fault.doubleFirstRun, "queues the first run twice", .rec1) {
            FaultyRecursionMutant($0)
        },
        faulty(FaultyRecursionMutant.Fault.reentrant, "a reschedule during the block runs it inside itself", .rec2) {
            FaultyRecursionMutant($0)
        },
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

    private static let timers: [Mutant] = [
        mutant("early-timers", "fires timers at half their delay", .tim1) { EarlyTimersMutant("early-timers") },
        mutant("early-by-rounding", "rounds deadlines down to 10 ms", .tim1) {
            EarlyByRoundingMutant("early-by-rounding")
        },
        mutant("late-timers", "fires timers 400 ms late", .tim2) { LateTimersMutant("late-timers") },
        mutant("past-deadline-dropped", "a past deadline becomes centuries away", .tim3) {
            PastDeadlineDroppedMutant("past-deadline-dropped")
        },
        mutant("timers-in-insertion-order", "fires timers in the order they were added", .tim4) {
            TimersInInsertionOrderMutant("timers-in-insertion-order")
        },
        mutant("repeating-early", "ticks every 0.8 intervals", .tim5) { RepeatingEarlyMutant("repeating-early") },
        faulty(RepairsRepeatingMutant.Repair.zeroInterval, "turns a zero interval into 1 ms", .tim7) {
            RepairsRepeatingMutant($0)
        },
        faulty(RepairsRepeatingMutant.Repair.negativeLeeway, "turns a negative leeway into zero", .tim8) {
            RepairsRepeatingMutant($0)
        },
        mutant("overflowing-intervals", "wraps huge intervals instead of refusing", .tim9) {
            OverflowingIntervalsMutant("overflowing-intervals")
        },
        mutant("distant-future-wraps", "a far deadline wraps into the past", .tim10) {
            DistantFutureWrapsMutant("distant-future-wraps")
        },
        faulty(RepairsRepeatingMutant.Repair.hugeInterval, "clamps intervals over a day to 1 ms", .tim11) {
            RepairsRepeatingMutant($0)
        },
        mutant("repeating-drifts", "re-arms each tick from its own time plus three leeways", .tim12) {
            RepeatingDriftsMutant("repeating-drifts")
        },
        mutant("rearms-from-action-end", "re-arms each tick an interval after its action returned", .tim12) {
            RearmsFromActionEndMutant("rearms-from-action-end")
        },
        mutant("period-stretched-by-leeway", "every period is the interval plus one leeway", .tim6) {
            PeriodStretchedByLeewayMutant("period-stretched-by-leeway")
        },
        mutant("drifts-after-warmup", "keeps the grid for three ticks, then stretches each period by one leeway", .tim6)
        { DriftsAfterWarmupMutant("drifts-after-warmup") },
        mutant("leeway-multiplied", "fires at the end of a window four leeways wide", .tim6) {
            LeewayMultipliedMutant("leeway-multiplied")
        },
        mutant("fast-clock", "its clock runs 25 % fast, timers agreeing with it", .tim13) {
            FastClockMutant("fast-clock")
        },
        Mutant(
            subject: ConformanceSubject(
                name: "mutant-wall-clock-deadlines", origin: .mutant, wallClockStep: { MutantWallClock.step($0) }
            ) {
                WallClockDeadlinesMutant("wall-clock-deadlines")
            },
            fault: "keeps timers as wall-clock deadlines", killer: .tim14
        ),
        mutant("repeating-first-tick-late", "the first tick comes one interval after the start", .tim15) {
            RepeatingFirstTickLateMutant("repeating-first-tick-late")
        },
    ]

    private static let synchronous: [Mutant] = [
        mutant("deferring-immediate", "claims synchronous, runs later", .imm1) { DeferringImmediateMutant() },
        faulty(FaultyImmediateMutant.Fault.dropsRarely, "loses one action in 400", .imm2) { FaultyImmediateMutant($0) },
        faulty(FaultyImmediateMutant.Fault.defersNested, "defers nested actions until the outer one returns", .imm3) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.wakesEarly, "sleeps for the delay rounded down to 10 ms", .imm4) {
            FaultyImmediateMutant($0)
        },
        faulty(FaultyImmediateMutant.Fault.acceptsRepeating, "accepts repeating and runs it once", .imm5) {
            FaultyImmediateMutant($0)
        },
        faulty(
            FaultyImmediateMutant.Fault.synchronousUnclaimed,
            "runs synchronously but claims cancellation instead of synchronous", .can5
        ) { FaultyImmediateMutant($0) },
        faulty(FaultyTrampolineMutant.Fault.eager, "runs nested actions re-entrantly", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.lifo, "drains its queue last-in first-out", .trm1) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.ignoresDisposal, "nested handles are not checked", .trm2) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.staysBusy, "stays busy after a drain that ran something", .trm3) {
            FaultyTrampolineMutant($0)
        },
        mutant("shared-trampoline", "one queue for all threads", .trm4) { SharedTrampolineMutant() },
        faulty(FaultyTrampolineMutant.Fault.recursiveDrain, "drains by recursion", .trm5) {
            FaultyTrampolineMutant($0)
        },
        faulty(FaultyTrampolineMutant.Fault.sharedBusyFlag, "per-thread queues, one shared busy flag", .trm6) {
            FaultyTrampolineMutant($0)
        },
    ]

    private static let virtualTime: [Mutant] = [
        faulty(FaultyVirtualMutant.Fault.runsEagerly, "runs a plain action at once when nothing is pending", .vt1) {
            FaultyVirtualMutant($0)
        },
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

    private static let threadSafety: [Mutant] = [
        mutant("lossy", "loses one action in 97", .thr1) { LossyMutant("lossy") },
        mutant("doubles-across-threads", "runs one action in 300 scheduled from another thread twice", .thr1) {
            DoublesAcrossThreadsMutant("doubles-across-threads")
        },
        mutant("runs-pending-twice-on-release", "on release runs pending work that its queue runs too", .thr2) {
            RunsPendingTwiceOnReleaseMutant()
        },
        mutant("keeps-some-closures", "keeps one closure in 500 forever", .thr3) {
            KeepsSomeClosuresMutant("keeps-some-closures")
        },
        mutant("serial-claiming-concurrency", "claims concurrency, runs serially", .thr4) {
            SerialClaimingConcurrencyMutant()
        },
        mutant("serialised-by-lock", "a concurrent queue, every action under one lock", .thr4) {
            SerialisedByLockMutant()
        },
        mutant("lane-per-caller", "one serial lane per calling thread", .thr4) { LanePerCallerMutant() },
    ]

    /// Hangs when asked to repeat: every rule using repeating must become a timeout.
    public static let hanging = ConformanceSubject(name: "mutant-hanging", origin: .mutant) {
        HangingMutant("mutant-hanging")
    }

    /// Traps on `schedule(at:)`: the process dies, the supervisor reports an error.
    public static let crashing = ConformanceSubject(name: "mutant-crashing", origin: .mutant) {
        CrashingMutant("mutant-crashing")
    }

    /// Every mutant subject, the harness ones included.
    public static var subjects: [ConformanceSubject] { all.map(\.subject) + [hanging, crashing] }

    /// The mutant named `name` (with or without its `mutant-` prefix).
    public static func named(_ name: String) -> Mutant? {
        all.first { $0.subject.name == name || $0.subject.name == "mutant-" + name }
    }

    private static func mutant(
        _ name: String, _ fault: String, _ killer: RuleID, _ make: @escaping @Sendable () -> any Scheduler
    ) -> Mutant {
        Mutant(
            subject: ConformanceSubject(name: "mutant-\(name)", origin: .mutant, make: make), fault: fault,
            killer: killer)
    }

    /// A mutant of a parametric kind, named by its fault.
    private static func faulty<Fault: RawRepresentable<String> & Sendable>(
        _ fault: Fault, _ description: String, _ killer: RuleID, _ make: @escaping @Sendable (Fault) -> any Scheduler
    ) -> Mutant {
        mutant(fault.rawValue, description, killer) { make(fault) }
    }
}

extension Mutants {
    /// Broken clocks: real ones on Dispatch's clock and manual ones, each caught by its CLK rule.
    static let clocks: [Mutant] = [
        clock(.perThreadSkew, "threads read a clock 5 ms apart", .clk1),
        clock(.roundsToMilliseconds, "rounds the time left down to whole milliseconds", .clk2),
        clock(.staleSleepFor, "`sleep(for:)` measures from when the clock was made", .clk3),
        clock(.pastDeadlineWaits, "a past deadline sleeps for how long ago it was", .clk4),
        clock(.parkedIgnoresCancellation, "checks cancellation before sleeping, not while parked", .clk5),
        clock(.wrappingInstants, "instants wrap 64-bit nanoseconds", .clk6),
        clock(.oversleeps, "every sleep is 400 ms late", .clk11),
        manualClock(.earlyByOne, "resumes sleepers one nanosecond before their deadline", .clk2),
        manualClock(.sleepForFromOrigin, "`sleep(for:)` measures from the clock's origin", .clk3),
        manualClock(.dueWaits, "a deadline equal to now waits for the next advance", .clk4),
        manualClock(.ignoresCancellation, "a parked sleeper ignores cancellation", .clk5),
        manualClock(.nowIsTarget, "sleepers resume with now already at the advance's target", .clk7),
        manualClock(.registrationOrder, "resumes due sleepers in the order they registered", .clk7),
        manualClock(.tiesLIFO, "equal deadlines resume last-in first", .clk8),
        manualClock(.keepsCancelled, "cancelled sleepers stay registered", .clk9),
        manualClock(.runSnapshot, "run() wakes only the sleepers present when it began", .clk10),
        manualClock(
            .deregistersByDeadline,
            "a cancelled sleeper is deregistered by its deadline: with ties, a live one goes instead", .clk8),
        manualClock(
            .cancelSwapRemoves, "cancelling swaps the last sleeper into the hole, and ties resume in list order", .clk8),
        Mutant(
            subject: ConformanceSubject(
                name: "mutant-\(FaultyImmediateClock.Fault.movesBack.rawValue)", origin: .mutant,
                clock: { FaultyImmediateClock(.movesBack).underTest }),
            fault: "a sleep until a past deadline sets the time back to it", killer: .clk4
        ),
    ]

    /// The clock, executor and hand-written drain-loop mutants without their fault: each must
    /// pass every rule of its kind, which proves a mutant is wrong in its fault and nothing else.
    public static let controls: [ConformanceSubject] = [
        ConformanceSubject(name: "control-real-clock", origin: .mutant, clock: { FaultyRealClock(nil).underTest }),
        ConformanceSubject(name: "control-manual-clock", origin: .mutant, clock: { FaultyManualClock(nil).underTest }),
        ConformanceSubject(
            name: "control-immediate-clock", origin: .mutant, clock: { FaultyImmediateClock(nil).underTest }),
        ConformanceSubject(name: "control-executor", origin: .mutant, executor: { FaultyExecutor(nil).underTest }),
        ConformanceSubject(
            name: "control-virtual-executor", origin: .mutant,
            executor: { FaultyExecutor(nil, virtual: true).underTest }),
        ConformanceSubject(name: "control-drain-loop", origin: .mutant) { DrainLoopMutant(nil) },
    ]

    /// `make tsan`'s canary: a test scheduler whose queue is not guarded at all. Scheduling on
    /// it from two threads is a data race that ThreadSanitizer reports every time, while no
    /// rule can promise to see it (the race need not lose anything), so it is kept out of
    /// ``all``. The sanitizer run proves it still fails on this subject.
    public static let raceCanary = ConformanceSubject(
        name: "mutant-\(FaultyVirtualMutant.Fault.unguarded.rawValue)", origin: .mutant
    ) {
        FaultyVirtualMutant(.unguarded)
    }

    /// Broken executors, each caught by its EXE rule.
    static let executors: [Mutant] = [
        executor(.dropsJobs, "loses one job in 150", .exe1),
        executor(.overlapsWhenBusy, "runs new jobs on the global queue while one runs", .exe2),
        executor(.lifoBacklog, "drains jobs that queued behind another last-in first", .exe3),
        executor(.runsInlineOnItsThread, "runs a job enqueued from its own thread inline", .exe4),
        executor(.notReflexive, "says it is not the same context as itself", .exe5),
        executor(.isolationPerDrain, "marks only the first job of each drain as isolated", .exe6),
        executor(.isolatedWhenBusy, "says it isolates any thread while a job runs", .exe7),
        executor(.checkIsolatedNeverTraps, "cannot tell outside its jobs, and its checkIsolated() never traps", .exe7),
        executor(.taskRoleElsewhere, "its task-executor role runs jobs on the global queue", .exe8),
        executor(.runsEagerlyWhenIdle, "runs a job at once when nothing is pending", .exe9, virtual: true),
        executor(
            .nestedRunsNext, "a job enqueued by one of its own jobs runs next, ahead of jobs already queued", .exe3),
        executor(.nestedAfterBacklog, "jobs enqueued by its own jobs wait until nothing else is queued", .exe3),
        executor(.sameContextForEveryInstance, "says every instance of its type is the same exclusive context", .exe5),
        executor(
            .sameContextByRunningThread,
            "compares the threads two executors are running on, so idle ones are one context", .exe5),
        executor(
            .isolatedInAnyInstancesJob,
            "on a pool shared by its instances, says it isolates any thread running a job of any of them", .exe7),
        executor(
            .isolatedOnAnyPoolThread, "says it isolates any thread of the pool it shares with its other instances",
            .exe7),
    ]

    private static func clock(_ fault: FaultyRealClock.Fault, _ description: String, _ killer: RuleID) -> Mutant {
        Mutant(
            subject: ConformanceSubject(
                name: "mutant-\(fault.rawValue)", origin: .mutant, clock: { FaultyRealClock(fault).underTest }),
            fault: description, killer: killer)
    }

    private static func manualClock(_ fault: FaultyManualClock.Fault, _ description: String, _ killer: RuleID) -> Mutant
    {
        Mutant(
            subject: ConformanceSubject(
                name: "mutant-\(fault.rawValue)", origin: .mutant, clock: { FaultyManualClock(fault).underTest }),
            fault: description, killer: killer)
    }

    private static func executor(
        _ fault: FaultyExecutor.Fault, _ description: String, _ killer: RuleID, virtual: Bool = false
    ) -> Mutant {
        Mutant(
            subject: ConformanceSubject(
                name: "mutant-\(fault.rawValue)", origin: .mutant,
                executor: { FaultyExecutor(fault, virtual: virtual).underTest }), fault: description, killer: killer)
    }
}
