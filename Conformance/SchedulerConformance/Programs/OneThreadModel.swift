/// What a program's run showed, in order: each action or recursion run's start (with the
/// current scheduler it saw) and end, and the current scheduler after each call at the top.
public enum ProgramEvent: Hashable, Sendable, CustomStringConvertible {
    /// The current scheduler as an action or the program's top saw it.
    public enum Seen: Hashable, Sendable, CustomStringConvertible {
        /// The scheduler under test; the caller's (the host's, or none); some other.
        case subject, caller, other
        /// Not judged: a trampoline that does not claim to track the current scheduler.
        case unjudged
        /// The scheduler a subscription scheduler hands work to when its caller has none.
        case background

        public var description: String {
            switch self {
            case .subject: "the scheduler current"
            case .caller: "the caller's current scheduler"
            case .other: "another scheduler current"
            case .unjudged: "any current scheduler"
            case .background: "the subscription scheduler's background scheduler current"
            }
        }
    }

    /// Run `run` (counted from 0 over every schedule of n) of action or recursion n began.
    case started(Int, run: Int, current: Seen)
    /// That run returned.
    case ended(Int, run: Int)
    /// Call `call` at the program's top returned.
    case returned(call: Int, current: Seen)

    public var description: String {
        switch self {
        case .started(let n, let run, let current): "#\(n) run \(run) starts, \(current)"
        case .ended(let n, let run): "#\(n) run \(run) returns"
        case .returned(let call, let current): "call \(call) at the top returns, \(current)"
        }
    }
}

/// Which `schedule` or `scheduleRecursive` of n: the k-th, counted from 0.
public struct ProgramHandleKey: Hashable, Sendable {
    public var n: Int
    public var instance: Int
}

/// The events a correct immediate, trampoline or subscription scheduler gives for a program, on one
/// thread, given which calls the subject returned a handle for (a scheduler may return none
/// where the action already ran).
///
/// Immediate: every action runs at once, inside the call, with the caller's current
/// scheduler (the scheduler's own where it claims to track it); a recursion is a loop on
/// the caller's thread whose reschedules, in its block or while it loops, each add one more
/// run; one made once the loop ended starts it again at once. Trampoline: with no
/// trampoline running on the thread, a call runs its action (or recursion's run) at once,
/// then every action queued meanwhile, first in first out, skipping disposed ones; while one
/// runs, a call only queues. A run's reschedules made in its block are queued once it
/// returns, after what it queued; one made later queues at once (or runs, when the thread is
/// idle). A disposed recursion never runs again, queued runs included.
///
/// Subscription: the program runs inside the host's action, or while the rule holds the
/// background scheduler with a gate, so every queued run waits for the program's end, then
/// runs first in first out as the trampoline's do, with the host (or the background) current.
/// `schedule` runs its action at once wherever the caller has a current scheduler (inside the
/// host, inside any run) and queues it otherwise; a recursion is always queued.
struct OneThreadModel {
    enum Kind: Equatable {
        case immediate, trampoline, subscription
    }

    private enum Work {
        case action(ProgramHandleKey, body: [ProgramCall])
        case run(Int)
    }

    private enum Handle {
        case action(ProgramHandleKey)
        case recursion(Int)
    }

    private struct Recursion {
        let n: Int
        let runs: Int
        let late: Bool
        let body: [ProgramCall]
        var done = 0
        var disposed = false
        /// Trampoline: reschedules made by the run executing now.
        var deferred = 0
        /// Immediate: the loop is running, and the runs it still owes.
        var looping = false
        var pending = 0
    }

    let kind: Kind
    let tracksCurrent: Bool
    let insideHost: Bool
    let handles: [ProgramHandleKey: Bool]
    private(set) var events: [ProgramEvent] = []
    private var numbering = ProgramNumbering()
    private var latest: [Int: Handle] = [:]
    private var disposed: Set<ProgramHandleKey> = []
    private var recursions: [Recursion] = []
    private var kept: [Int: Int] = [:]
    private var busy = false
    private var queue: [Work] = []
    private var executing: [Int] = []
    /// Runs under way, nested ones included: inside any, the caller has a current scheduler.
    private var depth = 0

    init(_ kind: Kind, tracksCurrent: Bool, insideHost: Bool, handles: [ProgramHandleKey: Bool]) {
        self.kind = kind
        self.tracksCurrent = tracksCurrent
        self.insideHost = insideHost
        self.handles = handles
        // The subscription scheduler's queue is busy with the program itself until it ends.
        busy = kind == .subscription
    }

    /// The events `program` gives.
    static func events(
        of program: OneThreadProgram, _ kind: Kind, tracksCurrent: Bool, handles: [ProgramHandleKey: Bool]
    ) -> [ProgramEvent] {
        var model = OneThreadModel(kind, tracksCurrent: tracksCurrent, insideHost: program.insideHost, handles: handles)
        for (index, call) in program.calls.enumerated() {
            model.perform(call)
            model.events.append(.returned(call: index, current: .caller))
        }
        if kind == .subscription { model.drain() }
        return model.events
    }

    /// What an action sees as current.
    private var inside: ProgramEvent.Seen {
        switch kind {
        case .subscription: insideHost ? .caller : .background
        case _ where tracksCurrent: .subject
        case .immediate: .caller
        case .trampoline: .unjudged
        }
    }

    /// Whether `schedule` runs its action inside the call.
    private var runsInline: Bool {
        switch kind {
        case .immediate: true
        case .trampoline: false
        case .subscription: insideHost || depth > 0
        }
    }

    private mutating func perform(_ call: ProgramCall) {
        switch call {
        case .schedule(let n, let body):
            let key = take(n)
            if runsInline {
                runAction(key, body)
            } else if busy {
                queue.append(.action(key, body: body))
            } else {
                busy = true
                runAction(key, body)
                drain()
            }
            latest[n] = handles[key] == true ? .action(key) : nil
        case .recurse(let n, let runs, let late, let body):
            let key = take(n)
            recursions.append(Recursion(n: n, runs: runs, late: late, body: body))
            let index = recursions.count - 1
            scheduleRun(index)
            latest[n] = handles[key] == true ? .recursion(index) : nil
        case .reschedule(let n):
            if let index = kept[n] { reschedule(index) }
        case .dispose(let n):
            switch latest[n] {
            case .action(let key): disposed.insert(key)
            case .recursion(let index): recursions[index].disposed = true
            case nil: break
            }
        }
    }

    private mutating func take(_ n: Int) -> ProgramHandleKey {
        numbering.schedule(n)
    }

    private mutating func start(_ n: Int) -> Int {
        let run = numbering.run(n)
        events.append(.started(n, run: run, current: inside))
        return run
    }

    private mutating func runAction(_ key: ProgramHandleKey, _ body: [ProgramCall]) {
        let run = start(key.n)
        depth += 1
        for call in body { perform(call) }
        depth -= 1
        events.append(.ended(key.n, run: run))
    }

    /// Runs what the trampoline queued, first in first out, and leaves the thread idle.
    private mutating func drain() {
        while !queue.isEmpty {
            switch queue.removeFirst() {
            case .action(let key, let body): if !disposed.contains(key) { runAction(key, body) }
            case .run(let index): execute(index)
            }
        }
        busy = false
    }

    private mutating func scheduleRun(_ index: Int) {
        switch kind {
        case .immediate:
            if recursions[index].looping {
                recursions[index].pending += 1
            } else {
                recursions[index].looping = true
                loop(index)
            }
        case .trampoline, .subscription:
            guard !busy else { return queue.append(.run(index)) }
            busy = true
            execute(index)
            drain()
        }
    }

    private mutating func reschedule(_ index: Int) {
        if kind != .immediate, executing.last == index {
            recursions[index].deferred += 1
        } else {
            scheduleRun(index)
        }
    }

    /// The immediate scheduler's recursion: runs while it owes runs and is not disposed.
    private mutating func loop(_ index: Int) {
        while !recursions[index].disposed {
            runBlock(index)
            guard recursions[index].pending > 0 else {
                recursions[index].looping = false
                return
            }
            recursions[index].pending -= 1
        }
    }

    /// The trampoline's run of a recursion: skipped once disposed; its block's reschedules
    /// queued once it returns.
    private mutating func execute(_ index: Int) {
        guard !recursions[index].disposed else { return }
        executing.append(index)
        recursions[index].deferred = 0
        runBlock(index)
        executing.removeLast()
        for _ in 0..<recursions[index].deferred { queue.append(.run(index)) }
    }

    private mutating func runBlock(_ index: Int) {
        let recursion = recursions[index]
        let run = start(recursion.n)
        depth += 1
        for call in recursion.body { perform(call) }
        depth -= 1
        recursions[index].done += 1
        if recursion.late {
            kept[recursion.n] = index
        } else if recursions[index].done < recursion.runs {
            reschedule(index)
        }
        events.append(.ended(recursion.n, run: run))
    }
}
