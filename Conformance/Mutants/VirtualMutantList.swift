import SchedulerVocabulary
import Schedulers

extension Mutants {
    /// The faulty virtual-time scheduler's mutants (VirtualMutants.swift): each one's name, its
    /// fault and the rule that must catch it, written once.
    static let virtual: [Mutant] = [
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
        faulty(
            FaultyVirtualMutant.Fault.inRunRerunsQueuedAtTheCall,
            "queues a run asked for inside a run at the call, ahead of the work the run queues after asking", .rec2
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
        faulty(
            FaultyVirtualMutant.Fault.pastKeepsItsTime,
            "queues a deadline already past with its own time, ahead of work due at the present", .lin7
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.stepCountsDisposed, "spends a step on a disposed entry, running nothing", .lin7
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.advanceToNowSkips, "an advance to the present returns at once, running nothing",
            .lin7
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.tickLosesOwnDisposal,
            "re-arms a tick once it ran, losing a disposal made inside it", .lin7
        ) { FaultyVirtualMutant($0) },
        faulty(FaultyVirtualMutant.Fault.drivesOverlap, "drives from two threads run side by side", .lin2) {
            FaultyVirtualMutant($0)
        },
        faulty(
            FaultyVirtualMutant.Fault.gatePerAction,
            "keeps drives one at a time per action, so another drive slips in between an advance's actions", .lin2
        ) { FaultyVirtualMutant($0) },
        faulty(
            FaultyVirtualMutant.Fault.stepOutsideGate, "keeps advances whole, but a step runs beside them", .lin2
        ) { FaultyVirtualMutant($0) },
    ]
}
