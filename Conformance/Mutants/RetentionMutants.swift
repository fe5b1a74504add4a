import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// Actions kept by key until taken: the table the retention mutants prune only when work runs.
final class KeptActions: Sendable {
    private let table = Lock<(next: Int, actions: [Int: SchedulerAction])>((0, [:]))

    /// Keeps `action`; returns its key.
    func keep(_ action: @escaping SchedulerAction) -> Int {
        table.withLock { table in
            defer { table.next += 1 }
            table.actions[table.next] = action
            return table.next
        }
    }

    /// Removes and returns the action kept under `key`.
    func take(_ key: Int) -> SchedulerAction? { table.withLock { $0.actions.removeValue(forKey: key) } }
}

/// Keeps each delayed action in a table until it fires, and skips a disposed one before
/// removing it: every disposed timer's closure stays for the scheduler's life.
final class DisposedTimerKeepsClosureMutant: MutantBase, @unchecked Sendable {
    private let pending = KeptActions()

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let key = pending.keep(action)
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            guard !disposable.isDisposed, let action = self.pending.take(key) else { return }
            self.run(action, unless: disposable)
        }
        return disposable
    }
}

/// Keeps each recursion's block in a table, for bookkeeping, until a run ends without
/// rescheduling; a disposed recursion never ends that way, so its block stays.
final class DisposedRecursionKeptMutant: MutantBase, @unchecked Sendable {
    private typealias Block = @Sendable (@escaping @Sendable () -> Void) -> Void
    private let recursions = Lock<(next: Int, blocks: [Int: Block])>((0, [:]))

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let key = recursions.withLock { recursions in
            defer { recursions.next += 1 }
            recursions.blocks[recursions.next] = block
            return recursions.next
        }
        return RecursiveScheduling.start(on: self) { [self] reschedule in
            let again = Box(false)
            block {
                again.value = true
                reschedule()
            }
            if !again.value { recursions.withLock { $0.blocks[key] = nil } }
        }
    }
}

/// Keeps a recursion's block in a table of late runs while a run asked for after the last one
/// returned waits, and takes it out when that run starts: one disposed first never starts,
/// and its entry keeps the block for the scheduler's life.
final class DisposedLateRunKeptMutant: MutantBase, @unchecked Sendable {
    private let late = KeptActions()

    override func scheduleRecursive(_ block: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> (
        any Disposable
    )? {
        let waiting = Lock<[Int]>([])
        return RecursiveScheduling.start(on: self) { [late] reschedule in
            for key in waiting.withLock({ $0 }) { _ = late.take(key) }
            waiting.withLock { $0.removeAll() }
            let returned = Box(false)
            block {
                if returned.value {
                    let key = late.keep { _ = block }
                    waiting.withLock { $0.append(key) }
                }
                reschedule()
            }
            returned.value = true
        }
    }
}

/// Keeps the work its actions schedule in a table of follow-ups, so a dispose from the same
/// action could find it; an entry leaves the table when it runs, so one disposed first stays.
final class DisposedFollowUpKeptMutant: MutantBase, @unchecked Sendable {
    private let followUps = KeptActions()

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        guard CurrentScheduler.value === self else { return super.schedule(action) }
        let disposable = BooleanDisposable()
        let key = followUps.keep(action)
        queue.async {
            guard !disposable.isDisposed, let action = self.followUps.take(key) else { return }
            self.run(action, unless: disposable)
        }
        return disposable
    }
}

extension Mutants {
    /// Disposed work kept alive through a door other than plain `schedule`.
    static let retention: [Mutant] = [
        mutant(
            "disposed-timer-keeps-closure", "a disposed timer's closure stays in its table of pending timers", .can10
        ) { DisposedTimerKeepsClosureMutant($0) },
        mutant("disposed-recursion-kept", "a disposed recursion's block stays in its table of recursions", .can10) {
            DisposedRecursionKeptMutant($0)
        },
        mutant(
            "disposed-follow-up-kept", "work its actions schedule, disposed, stays in its table of follow-ups", .can10
        ) { DisposedFollowUpKeptMutant($0) },
        mutant(
            "disposed-late-run-kept",
            "a recursion's block stays in its table of late runs when the late run was disposed before it started",
            .can10
        ) { DisposedLateRunKeptMutant($0) },
    ]
}
