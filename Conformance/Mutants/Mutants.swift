import SchedulerVocabulary
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
        ordering + drainLoop + entryPoint + concurrency + optimisedOnly + cancellation + releaseAndTimerDisposal
        + heldHandle + retention + current + subscription + recursion + timer + repeatingTimer + repeatingGrid
        + immediate + trampoline + timedWork
        + virtual
        + threadSafety + clocks + executors + scenarios + mainThread

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
            ) { DisposeRaceRareMutant($0) },
        ]
    #endif
    /// Hangs when asked to repeat: every rule using repeating must become a timeout.
    public static let hanging = harness("hanging") { HangingMutant($0) }

    /// Traps on `schedule(at:)`: the process dies, the supervisor reports an error.
    public static let crashing = harness("crashing") { CrashingMutant($0) }

    /// Grows without bound once a repeating timer is asked for: the worker's memory cap stops it.
    public static let growing = harness("growing") { GrowingMutant($0) }

    /// Correct, but a repeating timer leaves a thread spinning for good: the worker must say
    /// so and give the next rules a fresh process.
    public static let spinning = harness("spinning") { SpinningMutant($0) }

    /// Correct, but every insert sorts its whole queue again: the `growth` scenario's mutant.
    public static let resorting = harness("resorting-virtual") { ResortingVirtualMutant($0) }

    /// Correct, but its pending actions are an array it removes the first of: the `growth`
    /// scenario's fan-in mutant.
    public static let arrayFIFO = harness("array-fifo") { ArrayFIFOMutant($0) }

    /// Correct but for one closure in ten thousand it keeps forever: the `soak`'s mutant.
    public static let leaking = harness("keeps-one-closure-in-10000") { KeepsOneClosureInTenThousandMutant($0) }

    /// Every mutant subject, the harness ones included.
    public static var subjects: [ConformanceSubject] {
        all.map(\.subject) + [hanging, crashing, growing, spinning, resorting, arrayFIFO, leaking]
    }

    /// The mutant named `name` (with or without its `mutant-` prefix).
    public static func named(_ name: String) -> Mutant? {
        all.first { $0.subject.name == name || $0.subject.name == "mutant-" + name }
    }

    /// Mutants only a generated concurrent scenario finds: each wrong on an entry point
    /// other than plain `schedule` (dispose, a declared extra call, advance, step, `now`),
    /// in a window of a microsecond or so.
    ///
    /// Bundled only in optimised builds: in a debug build their windows are not yet met in
    /// every run, nor with every core busy (the open part of issue 26).
    private static let scenarios: [Mutant] =
        LaneScheduler.Fault.allCases.filter { $0 != .none && optimised }.map { fault in
            Mutant(subject: LaneScheduler.subject(fault), fault: fault.summary, killer: .lin1)
        }
        + RacyVirtualScheduler.Fault.allCases.filter { $0 != .none && optimised }.map {
            fault in
            mutant(fault.rawValue, fault.summary, .lin2, declaring: fault.declaration) { _ in
                RacyVirtualScheduler(fault)
            }
        }
        + RacyManualClock.Fault.allCases.filter { $0 != .none && optimised }.map { fault in
            Mutant(
                subject: ConformanceSubject(
                    name: "mutant-\(fault.rawValue)", origin: .mutant, clock: { RacyManualClock(fault).underTest }),
                fault: fault.summary, killer: .lin3)
        }
        + RacyExecutor.Fault.allCases.filter { $0 != .none && optimised }.map { fault in
            Mutant(
                subject: ConformanceSubject(
                    name: "mutant-\(fault.rawValue)", origin: .mutant, executor: { RacyExecutor(fault).underTest }),
                fault: fault.summary, killer: .lin4)
        }

    #if DEBUG
        private static let optimised = false
    #else
        private static let optimised = true
    #endif

    /// The lane the scenario mutants break, correct, with its `reset` declared as a
    /// scenario operation: what an adopter's subject with an extra call looks like.
    public static let correctLane = LaneScheduler.subject(.none, origin: .thirdParty)

    /// The virtual-time scheduler LIN-2's mutants break, correct: the control that shows
    /// their kills come from their faults.
    public static let correctRacyVirtual = ConformanceSubject(name: "racy-virtual", origin: .thirdParty) {
        RacyVirtualScheduler(.none)
    }

    /// The mutant `name` (its subject is `mutant-` and the name), whose scheduler `make` builds
    /// from that name: the one place a mutant's name and fault are written.
    static func mutant(
        _ name: String, _ fault: String, _ killer: RuleID, declaring declaration: Declaration? = nil,
        wallClockStep: (@Sendable (Duration) -> Void)? = nil,
        _ make: @escaping @Sendable (_ name: String) -> any Scheduler
    ) -> Mutant {
        var subject = ConformanceSubject(name: "mutant-\(name)", origin: .mutant, wallClockStep: wallClockStep) {
            make(name)
        }
        if let declaration { subject = subject.declaring(declaration) }
        return Mutant(subject: subject, fault: fault, killer: killer)
    }

    /// A mutant of the harness's own (it hangs, crashes, grows, or is correct but for what a
    /// stress scenario finds), whose scheduler is named as its subject is.
    static func harness(_ name: String, _ make: @escaping @Sendable (_ name: String) -> any Scheduler)
        -> ConformanceSubject
    {
        ConformanceSubject(name: "mutant-\(name)", origin: .mutant) { make("mutant-\(name)") }
    }

    /// A mutant of a parametric kind, named by its fault.
    static func faulty<Fault: RawRepresentable<String> & Sendable>(
        _ fault: Fault, _ description: String, _ killer: RuleID, _ make: @escaping @Sendable (Fault) -> any Scheduler
    ) -> Mutant {
        mutant(fault.rawValue, description, killer) { _ in make(fault) }
    }
}
