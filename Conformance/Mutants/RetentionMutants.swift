import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// Keeps each delayed action in a table until it fires, and skips a disposed one before
/// removing it: every disposed timer's closure stays for the scheduler's life.
final class DisposedTimerKeepsClosureMutant: MutantBase, @unchecked Sendable {
    private let pending = Lock<(next: Int, actions: [Int: SchedulerAction])>((0, [:]))

    override func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (
        any Disposable
    )? {
        let disposable = BooleanDisposable()
        let key = pending.withLock { pending in
            defer { pending.next += 1 }
            pending.actions[pending.next] = action
            return pending.next
        }
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(deadline.nanoseconds, 1))) {
            guard !disposable.isDisposed else { return }
            if let action = self.pending.withLock({ $0.actions.removeValue(forKey: key) }) {
                self.run(action, unless: disposable)
            }
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

extension Mutants {
    /// Disposed work kept alive through a door other than plain `schedule`.
    static let retention: [Mutant] = [
        mutant(
            "disposed-timer-keeps-closure", "a disposed timer's closure stays in its table of pending timers", .can10
        ) { DisposedTimerKeepsClosureMutant($0) },
        mutant("disposed-recursion-kept", "a disposed recursion's block stays in its table of recursions", .can10) {
            DisposedRecursionKeptMutant($0)
        },
    ]
}
