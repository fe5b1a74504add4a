import SchedulerConformance
import Schedulers

/// Deliberately broken schedulers: the suite must reject every one of them.
public enum Mutants {
    /// A mutant and the rules expected to catch it (any one failing is a kill).
    public struct Mutant: Sendable {
        /// The broken scheduler as a subject.
        public let subject: ConformanceSubject
        /// What is wrong with it.
        public let fault: String
        /// Rule IDs written to catch this fault.
        public let expectedKillers: [String]
    }

    /// Every mutant that a correct suite kills. The hanging and crashing ones are separate:
    /// they test the harness's isolation, not the rules.
    public static let all: [Mutant] = [
        mutant("lifo", "runs actions last-in first-out", ["ORD-1"]) { LIFOMutant("lifo") },
        mutant("overlapping", "claims serial, runs each action on a thread of its own", ["ORD-2"]) { OverlappingMutant() },
        mutant("reentrant", "runs nested actions inline", ["ORD-4", "ORD-5"]) { ReentrantMutant("reentrant") },
        mutant("lossy", "loses one action in 97", ["ORD-3", "THR-1"]) { LossyMutant("lossy") },
        mutant("serial-claiming-concurrency", "claims concurrency, runs serially", ["THR-4"]) { SerialClaimingConcurrencyMutant() },
        mutant("ignores-disposal", "handles are not connected to actions", ["CAN-1"]) { IgnoresDisposalMutant("ignores-disposal") },
        mutant("dispose-checked-after", "checks disposal after running", ["CAN-1"]) { DisposeCheckedAfterMutant("dispose-checked-after") },
        mutant("keeps-closures", "keeps every closure forever", ["CAN-9", "THR-3"]) { KeepsClosuresMutant("keeps-closures") },
        mutant("repeating-ignores-disposal", "repeating timers never stop", ["CAN-6"]) { RepeatingIgnoresDisposalMutant("repeating-ignores-disposal") },
        mutant("repeating-dies-when-dropped", "repeating timers stop when the handle is dropped", ["CAN-8"]) { RepeatingDiesWhenDroppedMutant("repeating-dies-when-dropped") },
        mutant("current-not-set", "never sets the current scheduler", ["CUR-1"]) { CurrentNotSetMutant("current-not-set") },
        mutant("repeating-without-current", "repeating ticks run without the current scheduler", ["CUR-3"]) { RepeatingWithoutCurrentMutant("repeating-without-current") },
        mutant("early-timers", "fires timers at half their delay", ["TIM-1"]) { EarlyTimersMutant("early-timers") },
        mutant("overflowing-intervals", "wraps huge intervals instead of refusing", ["TIM-9"]) { OverflowingIntervalsMutant("overflowing-intervals") },
        mutant("stack-recursion", "recursion recurses on the stack", ["REC-7"]) { StackRecursionMutant() },
        mutant("lossy-reschedule", "two reschedules give one run", ["REC-3"]) { LossyRescheduleMutant("lossy-reschedule") },
        mutant("recursion-ignores-disposal", "disposing a recursion does not stop it", ["REC-5", "REC-6"]) { RecursionIgnoresDisposalMutant("recursion-ignores-disposal") },
        mutant("deferring-immediate", "claims synchronous, runs later", ["IMM-1"]) { DeferringImmediateMutant() },
        mutant("always-async-subscription", "never runs inline", ["SUB-1"]) { AlwaysAsyncSubscriptionMutant() },
        mutant("eager-trampoline", "runs nested actions re-entrantly", ["TRM-1"]) { EagerTrampolineMutant() },
        mutant("shared-trampoline", "one queue for all threads", ["TRM-4"]) { SharedTrampolineMutant() },
        mutant("virtual-unstable-ties", "equal times run last-in first", ["VT-4"]) { FaultyVirtualMutant(.unstableTies) },
        mutant("virtual-now-is-target", "now is the advance target during actions", ["VT-7"]) { FaultyVirtualMutant(.nowIsTarget) },
    ]

    /// Hangs when asked to repeat: every rule using repeating must become a timeout.
    public static let hanging = ConformanceSubject(name: "mutant-hanging", origin: .mutant) { HangingMutant("mutant-hanging") }

    /// Traps on `schedule(at:)`: the process dies, the supervisor reports an error.
    public static let crashing = ConformanceSubject(name: "mutant-crashing", origin: .mutant) { CrashingMutant("mutant-crashing") }

    /// Every mutant subject, the harness ones included.
    public static var subjects: [ConformanceSubject] { all.map(\.subject) + [hanging, crashing] }

    private static func mutant(
        _ name: String, _ fault: String, _ killers: [String], _ make: @escaping @Sendable () -> any Scheduler
    ) -> Mutant {
        Mutant(subject: ConformanceSubject(name: "mutant-\(name)", origin: .mutant, make: make), fault: fault, expectedKillers: killers)
    }
}
