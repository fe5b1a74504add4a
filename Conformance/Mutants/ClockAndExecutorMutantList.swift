import SchedulerVocabulary
import Schedulers

extension Mutants {
    /// Broken clocks: real ones on Dispatch's clock and manual ones, each caught by its CLK rule.
    static let clocks: [Mutant] = [
        clock(.perThreadSkew, "threads read a clock 5 ms apart", .clk1),
        clock(.roundsToMilliseconds, "rounds the time left down to whole milliseconds", .clk2),
        clock(.roundsToNearestMillisecond, "rounds the time left to the nearest millisecond", .clk2),
        clock(.toleranceWakesEarly, "wakes a tolerance before the deadline when given one", .clk2),
        clock(.staleSleepFor, "`sleep(for:)` measures from when the clock was made", .clk3),
        clock(.pastDeadlineWaits, "a past deadline sleeps for how long ago it was", .clk4),
        clock(.parkedIgnoresCancellation, "checks cancellation before sleeping, not while parked", .clk5),
        clock(.wrappingInstants, "instants wrap 64-bit nanoseconds", .clk6),
        clock(.oversleeps, "every sleep is 400 ms late", .clk11),
        clock(.dueIgnoresCancellation, "a cancelled task's sleep to a passed deadline returns normally", .clk5),
        manualClock(.earlyByOne, "resumes sleepers one nanosecond before their deadline", .clk2),
        manualClock(.truncatesToNanoseconds, "keeps deadlines as whole nanoseconds, truncated", .clk2),
        manualClock(.roundsUpToMicroseconds, "claims nanoseconds but resumes at the next whole microsecond", .clk2),
        manualClock(.firstTickIsOrigin, "a deadline within its first tick is due at the origin", .clk2),
        manualClock(.lastNanosecondIsNever, "a deadline at the last nanosecond of a 64-bit count never comes", .clk2),
        manualClock(
            .dueWaitsOffItsExecutor, "a deadline equal to now waits for the next advance (sleepers off its executor)",
            .clk4),
        manualClock(.sleepForFromOrigin, "`sleep(for:)` measures from the clock's origin", .clk3),
        manualClock(.dueWaits, "a deadline equal to now waits for the next advance", .clk4),
        manualClock(.ignoresCancellation, "a parked sleeper ignores cancellation", .clk5),
        manualClock(
            .checksCancelOnlyOnEntry,
            """
            checks for a cancel only as the sleep begins, not under the lock it registers under: a cancel in between \
            is lost
            """,
            .clk5),
        manualClock(.nowIsTarget, "sleepers resume with now already at the advance's target", .clk7),
        manualClock(.registrationOrder, "resumes due sleepers in the order they registered", .clk7),
        manualClock(.tiesLIFO, "equal deadlines resume last-in first", .clk8),
        manualClock(
            .tiesLIFOAtTheFront,
            "ties with no earlier sleeper resume last-in first, until a cancellation re-sorts them", .clk8),
        manualClock(
            .tiesLIFOInTheMiddle, "ties registered behind a later sleeper resume last-in first", .clk8),
        manualClock(.keepsCancelled, "cancelled sleepers stay registered", .clk9),
        manualClock(.runSnapshot, "run() wakes only the sleepers present when it began", .clk10),
        manualClock(
            .deregistersByDeadline,
            "a cancelled sleeper is deregistered by its deadline: with ties, a live one goes instead", .clk8),
        manualClock(
            .cancelSwapRemoves, "cancelling swaps the last sleeper into the hole, and ties resume in list order",
            .clk8),
        manualClock(.drivesOverlap, "advances and runs from two threads go side by side", .lin3),
        manualClock(
            .targetBeforeGate, "advances take turns, but each reads the time it advances from before its turn",
            .lin3),
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
        // Its timer queues an entry for every tick that falls due, so the ticks a long action
        // held up all run after it: a burst, by design.
        ConformanceSubject(name: "control-drain-loop", origin: .mutant) { DrainLoopMutant(nil) }
            .declaring(.missedTicks(.burst)),
        ConformanceSubject(
            name: "control-racy-executor", origin: .mutant, executor: { RacyExecutor(.none).underTest }),
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
            .runsInlineWhenIdle, "runs a job enqueued while idle inside `enqueue`, on the caller's thread", .exe3),
        executor(
            .nestedRunsNext, "a job enqueued by one of its own jobs runs next, ahead of jobs already queued", .exe3),
        executor(.nestedAfterBacklog, "jobs enqueued by its own jobs wait until nothing else is queued", .exe3),
        executor(.priorityOrder, "runs the highest-priority queued job first, undeclared", .exe3),
        executor(
            .nestedRunsNextLastFirst,
            "declares its jobs' follow-ups ahead of the waiting jobs, and runs them last first",
            .exe3, declaring: .nestedJobs(.aheadOfWaitingJobs)),
        executor(
            .nestedAheadBreadthFirst,
            "declares its jobs' follow-ups ahead of the waiting jobs, and runs a nested job's own after its siblings",
            .exe3, declaring: .nestedJobs(.aheadOfWaitingJobs)),
        executor(
            .aheadWhileRunning,
            "declares its jobs' follow-ups ahead of the waiting jobs, and puts any job enqueued while one runs there",
            .exe3, declaring: .nestedJobs(.aheadOfWaitingJobs)),
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
        _ fault: FaultyExecutor.Fault, _ description: String, _ killer: RuleID, virtual: Bool = false,
        declaring declarations: Declaration...
    ) -> Mutant {
        var subject = ConformanceSubject(
            name: "mutant-\(fault.rawValue)", origin: .mutant,
            executor: { FaultyExecutor(fault, virtual: virtual).underTest })
        for declaration in declarations { subject = subject.declaring(declaration) }
        return Mutant(subject: subject, fault: description, killer: killer)
    }
}
