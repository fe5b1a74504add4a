/// LIN-4's specification of a serial executor, from the semantics (§8: FIFO among jobs
/// enqueued one after another, whatever their priority) and the EXE rules: jobs start in
/// the order they were enqueued, from any thread or from inside a job; one runs at a time;
/// inside its job the executor says it isolates the thread, and outside them it never does;
/// a virtual executor runs jobs only while driven, and a drive returns with none ready. One
/// that declares `NestedJobs.aheadOfWaitingJobs` runs the jobs a job enqueues right after
/// it, in their order, ahead of those waiting.
public struct SerialExecutorModel: SequentialModel, CustomStringConvertible {
    /// A call, or what a job saw. Jobs are numbered in the order the scenario makes them.
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        /// Enqueues job n, which when it runs enqueues the jobs `nested` from inside itself.
        case enqueue(Int, nested: [Int])
        /// Asks the executor whether it isolates the calling thread, which runs none of its jobs.
        case askIsolation
        /// Drives a virtual executor: it runs every ready job, jobs enqueued meanwhile included.
        case drive
        /// Observed: a drive returned.
        case drained
        /// Observed: the running job enqueued job n from inside itself.
        case enqueueInside(Int)
        /// Observed: job n started.
        case start(Int)
        /// Observed: job n returned.
        case end(Int)
        /// Observed: every job enqueued has run.
        case quiescent

        public var description: String {
            switch self {
            case .enqueue(let n, let nested) where nested.isEmpty: "enqueue #\(n)"
            case .enqueue(let n, let nested):
                "enqueue #\(n) (which enqueues #\(nested.map(String.init).joined(separator: ", #")))"
            case .enqueueInside(let n): "the running job enqueues #\(n)"
            case .askIsolation: "ask whether isolated"
            case .drive: "drive"
            case .drained: "drive returns"
            case .start(let n): "#\(n) starts"
            case .end(let n): "#\(n) returns"
            case .quiescent: "all done"
            }
        }
    }

    /// What a call returned or a job saw.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case done
        /// A job ran; whether the executor said it isolated the job's thread, when it
        /// claims to answer (nil otherwise).
        case ran(isolated: Bool?)
        /// The executor's answer to a thread running none of its jobs (nil: cannot tell).
        case isolated(Bool?)
        /// The jobs that had not run when the scenario ended (after a drive, or a wait of
        /// `Timing.mustHappen`), by number: none, for a correct executor.
        case pending([Int])

        public var description: String {
            switch self {
            case .done: "done"
            case .ran(let isolated):
                isolated.map { $0 ? "ran, isolated" : "ran, not isolated" } ?? "ran"
            case .isolated(let answer): answer.map { $0 ? "isolated" : "not isolated" } ?? "cannot tell"
            case .pending(let jobs):
                jobs.isEmpty ? "nothing pending" : "#\(jobs.map(String.init).joined(separator: ", #")) pending"
            }
        }
    }

    let checksIsolation: Bool
    let virtual: Bool
    /// Whether the jobs a job enqueues go ahead of those waiting (`NestedJobs.aheadOfWaitingJobs`).
    let nestedFirst: Bool
    /// Enqueued, not yet started, oldest first.
    var pending: [Int] = []
    /// The job running, if any.
    var running: Int?
    /// Whether a drive is under way (a virtual executor runs jobs only then).
    var driving = false
    /// How many jobs the running one has enqueued: with ``nestedFirst``, the next goes after them.
    var enqueuedByRunning = 0

    /// The model of a serial executor that answers isolation questions or not, runs jobs on
    /// its own (real time) or only when driven (virtual), and queues the jobs a job enqueues
    /// behind those waiting or, `nestedFirst`, ahead of them.
    public init(checksIsolation: Bool, virtual: Bool, nestedFirst: Bool = false) {
        self.checksIsolation = checksIsolation
        self.virtual = virtual
        self.nestedFirst = nestedFirst
    }

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: SerialExecutorModel)] {
        var next = self
        switch operation {
        case .enqueue(let n, _):
            next.pending.append(n)
        case .enqueueInside(let n):
            guard running != nil else { return [] }
            if nestedFirst {
                next.pending.insert(n, at: enqueuedByRunning)
                next.enqueuedByRunning += 1
            } else {
                next.pending.append(n)
            }
        case .askIsolation:
            // An executor may not know (nil), but must never claim a thread it is not on.
            return [(.isolated(false), self), (.isolated(nil), self)]
        case .drive:
            next.driving = true
        case .drained:
            guard pending.isEmpty, running == nil else { return [] }
            next.driving = false
        case .start(let n):
            guard running == nil, pending.first == n, driving || !virtual else { return [] }
            next.pending.removeFirst()
            next.running = n
            next.enqueuedByRunning = 0
            return [(.ran(isolated: checksIsolation ? true : nil), next)]
        case .end(let n):
            guard running == n else { return [] }
            next.running = nil
        case .quiescent:
            // The executor ran everything without being called again: no order of the calls
            // leaves a job behind.
            guard pending.isEmpty, running == nil else { return [] }
            return [(.pending([]), self)]
        }
        return [(.done, next)]
    }

    public var description: String {
        let waiting =
            pending.isEmpty ? "nothing enqueued" : "enqueued #" + pending.map(String.init).joined(separator: ", #")
        let busy = running.map { "running #\($0)" } ?? "nothing running"
        return virtual ? "\(waiting); \(busy); \(driving ? "driving" : "not driven")" : "\(waiting); \(busy)"
    }
}
