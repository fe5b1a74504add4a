import Dispatch
import Synchronization

/// A serial queue's actions and jobs, run in batches: what is scheduled while a batch waits
/// or runs joins the next one instead of costing a Dispatch enqueue of its own.
///
/// Dispatch charges every `async` a block, a continuation and an exchange on the queue's
/// tail, and the reference scheduler's action adds its handle on top (1.11× a bare
/// `DispatchQueue.async`). Here the queue sees one `async` per run of batches.
///
/// Scheduling is lock-free, as Dispatch's own enqueue is: work is pushed on a stack with one
/// compare-and-exchange, and the drain takes the whole stack with one exchange and reverses
/// it. No thread ever waits for another, so a producer preempted mid-push holds nobody up.
/// (A first design under one lock was faster still on a quiet machine, but with four
/// producers beside four busy loops on 2 cores a fan-in of 31,623 actions took 60–90 µs an
/// action: a lock holder preempted while the others slept on it.)
///
/// Order is the order in which pushes succeed: each batch is a prefix of what is left, and
/// batches run one after another on the queue, so the scheduler stays serial and FIFO. After
/// ``roundsPerAsync`` batches in a row the queue is handed back with an `async` for the rest,
/// so the queue's other work (a delayed action Dispatch put there when it fell due) is not
/// held off by a scheduler that keeps rescheduling itself. Another queue on the same serial
/// target does wait for it, as it does for any Dispatch queue that never empties.
final class SerialDrain: Sendable {
    /// One unit of work: an action with its handle, or an executor's job. The executor is
    /// held unowned, as the runtime holds one: it must outlive its jobs anyway.
    enum Work: @unchecked Sendable {
        // @unchecked: Unmanaged is not Sendable; the executor it points to is.
        case action(ScheduledAction)
        case job(UnownedJob, Unmanaged<SchedulerExecutor>, isolated: Bool)
    }

    /// A pushed piece of work, owned by the stack (one retain) from its push to its run.
    private final class Node: @unchecked Sendable {
        // @unchecked: `next` is written by the pushing thread before its push publishes the
        // node, and afterwards only by the drain that took the stack.
        let work: Work
        var next: Unmanaged<Node>?

        init(_ work: Work) { self.work = work }
    }

    /// Batches run per `async` at most: a recursion reschedules one action per batch, and an
    /// `async` for each would cost more than Dispatch alone.
    static let roundsPerAsync = 64

    let queue: DispatchQueue
    /// The work pushed since the drain last took it, newest first.
    private let top = Atomic<Unmanaged<Node>?>(nil)
    /// Whether a drain is on the queue or running. Only a push that finds the stack empty
    /// looks at it: any other push has one before it that did.
    private let draining = Atomic<Bool>(false)

    init(queue: DispatchQueue) { self.queue = queue }

    deinit {
        // Pending work keeps its scheduler, and so this, alive, so nothing should be left;
        // whatever is, is released rather than leaked.
        var node = top.load(ordering: .acquiring)
        while let current = node {
            node = current.takeUnretainedValue().next
            current.release()
        }
    }

    /// Adds `work` to the next batch, and asks the queue for a drain when none is running.
    @inline(__always)
    func enqueue(_ work: Work) {
        let node = Unmanaged.passRetained(Node(work))
        var expected = top.load(ordering: .relaxed)
        while true {
            node._withUnsafeGuaranteedRef { $0.next = expected }
            // Sequentially consistent, as the check of `draining` after it: a push onto the
            // empty stack and a drain going idle each see the other's write (see `drain`).
            let (pushed, current) = top.weakCompareExchange(
                expected: expected, desired: node, successOrdering: .sequentiallyConsistent,
                failureOrdering: .relaxed)
            if pushed { break }
            expected = current
        }
        if expected == nil { startDrainIfIdle() }
    }

    private func startDrainIfIdle() {
        guard !draining.load(ordering: .sequentiallyConsistent),
            draining.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        // Capturing the one reference keeps the closure free of a context allocation.
        queue.async { self.drain() }
    }

    private func drain() {
        for _ in 0..<Self.roundsPerAsync {
            if let taken = top.exchange(nil, ordering: .acquiring) {
                run(taken)
                continue
            }
            // Idle. A push that found the stack empty before this store saw `draining` set and
            // left the drain to this loop, so look again: either this load sees its node, or
            // its load of `draining` sees false and it starts a drain itself (or both, and
            // one of the two exchanges wins).
            draining.store(false, ordering: .sequentiallyConsistent)
            guard top.load(ordering: .sequentiallyConsistent) != nil,
                draining.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent)
                    .exchanged
            else { return }
        }
        // `draining` stays set: the rest runs after what else the queue holds.
        queue.async { self.drain() }
    }

    /// Runs the work of the stack `taken` (newest first) oldest first, and frees its nodes.
    private func run(_ taken: Unmanaged<Node>) {
        var oldest: Unmanaged<Node>?
        var node: Unmanaged<Node>? = taken
        while let current = node {
            current._withUnsafeGuaranteedRef { object in
                node = object.next
                object.next = oldest
            }
            oldest = current
        }
        // One look-up of the thread's state per batch: each action's scheduler is set for it
        // as `CurrentScheduler.run(as:)` would, and the previous one restored at the end.
        let thread = ThreadState.local
        let previous = thread.current
        while let current = oldest {
            // The stack's retain ends with this reference, after the work ran.
            let object = current.takeRetainedValue()
            oldest = object.next
            switch object.work {
            case .action(let item):
                guard let action = item.claim() else { continue }
                thread.current = item.scheduler
                action()
            case .job(let job, let executor, let isolated):
                let executor = executor.takeUnretainedValue()
                thread.current = executor.scheduler
                executor.run(job, isolated: isolated)
            }
        }
        thread.current = previous
    }
}
