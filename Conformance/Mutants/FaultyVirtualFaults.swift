extension FaultyVirtualMutant {
    /// One fault per instance; its raw value is the mutant's name.
    enum Fault: String, Sendable, CaseIterable {
        /// Equal times run last-in first.
        case unstableTies = "virtual-unstable-ties"
        /// `now` inside an action reports the advance target instead of the action's time.
        case nowIsTarget = "virtual-now-is-target"
        /// A plain `schedule` with nothing pending runs at once.
        case runsEagerly = "virtual-runs-eagerly"
        /// A step with nothing pending still moves time by a millisecond.
        case emptyStepMovesTime = "virtual-empty-step-moves-time"
        /// A step also runs the next action when it is due at the same time.
        case stepRunsTies = "virtual-step-runs-ties"
        /// It counts its calls without a lock: calls from two threads race on the count. No
        /// rule can catch that (the count decides nothing), but ThreadSanitizer does: this is
        /// `make tsan`'s canary (``Mutants/raceCanary``), not a mutant of a rule.
        case unguarded = "virtual-unguarded"
        /// `advance(to:)` runs what is due before the target, not at it.
        case advanceExclusive = "virtual-advance-exclusive"
        /// `advance(to:)` runs only what was pending when it started.
        case advanceSnapshot = "virtual-advance-snapshot"
        /// `advance(to:)` an earlier time moves the clock back.
        case movesBackwards = "virtual-moves-backwards"
        /// Work added during an advance waits for the batch that was due to finish.
        case insertionsAfterBatch = "virtual-insertions-after-batch"
        /// Work scheduled for the present during an advance is stamped with its target.
        case clampsToTarget = "virtual-clamps-to-target"
        /// Steps by instants, but a step runs two instants.
        case instantStepOverruns = "virtual-instant-step-overruns"
        /// Ties are FIFO in a short queue and last-in first in one of 64 entries or more.
        case unstableWhenLarge = "virtual-unstable-when-large"
        /// A repeating action's next tick is computed from the advance target.
        case repeatingFromTarget = "virtual-repeating-from-target"
        /// Correct, and steps one action at a time, but does not claim `singleStep`.
        case singleStepUnclaimed = "virtual-single-step-unclaimed"
        /// Its recursion checks the recursion's disposable before each run but does not
        /// withdraw the run already queued: disposed, it leaves a dead run for a step.
        case recursionLeavesPendingRun = "virtual-recursion-leaves-pending-run"
        /// Its recursion schedules a run, then checks whether the recursion was disposed, and
        /// records the run's handle (in an entry made after the check) in a second critical
        /// section: a dispose between the two disposes the handles recorded so far, not this
        /// one, which a step then runs.
        case recursionRecordsHandleLate = "virtual-recursion-records-handle-late"
        /// Its recursion queues a run asked for inside a run at the call, ahead of the work
        /// that run queues after asking (it still never re-enters the run: nothing runs
        /// outside a drive).
        case inRunRerunsQueuedAtTheCall = "virtual-in-run-reruns-queued-at-the-call"
        /// Queues a deadline already past with its own time rather than the present's: it runs
        /// at the present (time never goes back) but ahead of work already due there.
        case pastKeepsItsTime = "virtual-past-deadline-keeps-its-time"
        /// A step that reaches a disposed entry is spent on it: nothing runs, and the step
        /// still counts (and moves the time to that entry's).
        case stepCountsDisposed = "virtual-step-counts-disposed"
        /// `advance(to:)` the present returns at once, like one to an earlier time, leaving
        /// the work due now for a later drive (so does `advance(by: 0)`).
        case advanceToNowSkips = "virtual-advance-to-now-skips"
        /// Re-arms a repeating action from the entry it took once the tick ran, so a disposal
        /// made inside the tick (its own last tick, say) is lost and the series ticks on.
        case tickLosesOwnDisposal = "virtual-tick-loses-own-disposal"
        /// Has no drive gate: drives from two threads run their actions side by side.
        case drivesOverlap = "virtual-drives-overlap"
        /// Takes the drive gate for each action an advance runs rather than for the whole
        /// advance: one at a time still, but a drive from another thread slips in between two
        /// of them and runs work the advance had due.
        case gatePerAction = "virtual-gate-per-action"
        /// Keeps advances whole, but `step()` does not take the gate: a step runs beside them.
        case stepOutsideGate = "virtual-step-outside-gate"
    }
}
