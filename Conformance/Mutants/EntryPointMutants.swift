import Dispatch
import SchedulerVocabulary
import Schedulers
import Synchronization

/// Runs a `schedule(at:)` whose deadline has already come inline, on the caller's thread:
/// "it is due, why queue it?". Plain `schedule` stays asynchronous.
final class InlineDueDeadlineMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard deadline <= now else { return try super.schedule(at: deadline, action) }
        CurrentScheduler.run(as: self, action)
        return BooleanDisposable()
    }
}

/// A repeating timer whose start has passed runs its first tick inline, then arms the
/// timer for the next grid point: on the grid, first tick at once, and inside the call.
final class RepeatingFirstTickInlineMutant: MutantBase, @unchecked Sendable {
    override func makeTimer(deadline: SchedulerTime, spec: RepeatSpec, _ tick: @escaping SchedulerAction)
        -> any Disposable
    {
        guard deadline <= now else { return super.makeTimer(deadline: deadline, spec: spec, tick) }
        tick()
        return super.makeTimer(
            deadline: deadline.advancedSaturating(by: UInt64(spec.intervalNanoseconds)), spec: spec, tick)
    }
}

/// Runs a recursion's first run inline; reschedules counted during it, and later ones, go
/// through the queue as they should.
final class RecursiveFirstRunInlineMutant: MutantBase, @unchecked Sendable {
    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let recursion = CompositeDisposable()
        let returned = Atomic<Bool>(false)
        let deferred = Atomic<Int>(0)
        let reschedule: @Sendable () -> Void = {
            if returned.load(ordering: .acquiring) {
                recursion.add(RecursiveScheduling.start(on: self, block))
            } else {
                deferred.wrappingAdd(1, ordering: .relaxed)
            }
        }
        CurrentScheduler.run(as: self) { block(reschedule) }
        returned.store(true, ordering: .releasing)
        for _ in 0..<deferred.load(ordering: .relaxed) { recursion.add(RecursiveScheduling.start(on: self, block)) }
        return recursion
    }
}

/// The "already on the queue" fast path: a due `schedule(at:)` called from one of this
/// scheduler's own actions runs inline, inside the call. From any other thread, and for
/// plain `schedule`, it queues as it should.
final class InlineOnOwnQueueMutant: MutantBase, @unchecked Sendable {
    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        guard deadline <= now, CurrentScheduler.value === self else { return try super.schedule(at: deadline, action) }
        CurrentScheduler.run(as: self, action)
        return BooleanDisposable()
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let entryPoint: [Mutant] = [
        mutant("inline-due-deadline", "runs a `schedule(at:)` whose deadline has come inline", .ord5) {
            InlineDueDeadlineMutant($0)
        },
        mutant(
            "repeating-first-tick-inline", "a repeating timer with a past start runs its first tick inside the call",
            .ord5
        ) { RepeatingFirstTickInlineMutant($0) },
        mutant("recursive-first-run-inline", "`scheduleRecursive` runs the first run inside the call", .ord5) {
            RecursiveFirstRunInlineMutant($0)
        },
        mutant("inline-on-own-queue", "a due `schedule(at:)` from its own action runs inline", .ord5) {
            InlineOnOwnQueueMutant($0)
        },
    ]
}
