import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// One run of a program against the subject, recording what it saw.
///
/// @unchecked Sendable: its records are touched only by the thread holding its
/// ``ProgramToken``: the program's while the program's top runs, then whichever thread runs
/// an action.
final class ProgramRun: @unchecked Sendable {
    let scheduler: any Scheduler
    let host: any Scheduler
    let kind: OneThreadModel.Kind
    let judgesInside: Bool
    private let token = ProgramToken()
    /// The current scheduler the subscription scheduler's gate ran with.
    private let background = Lock<(any Scheduler)?>(nil)
    /// How many events the latest sentinel saw.
    private let progress = Atomic(0)
    private(set) var events: [ProgramEvent] = []
    private(set) var handles: [ProgramHandleKey: Bool] = [:]
    private var insideHost = false
    private var numbering = ProgramNumbering()
    private var latest: [Int: any Disposable] = [:]
    private var kept: [Int: @Sendable () -> Void] = [:]

    init(scheduler: any Scheduler, host: any Scheduler, kind: OneThreadModel.Kind, judgesInside: Bool) {
        self.scheduler = scheduler
        self.host = host
        self.kind = kind
        self.judgesInside = judgesInside
    }

    /// Runs `program` and the work it leads to; false when the subject had not done that
    /// work within `bound`.
    ///
    /// The synchronous profiles run it all inside the program's calls. The subscription
    /// scheduler's queued work waits until the program ends: inside the host's action, the
    /// host is busy with it; on a thread with no current scheduler, a gate action the rule
    /// queues first holds the background scheduler.
    func run(_ program: OneThreadProgram, within bound: Duration) -> Bool {
        insideHost = program.insideHost
        let finished = ran(program, within: bound)
        // A kept reschedule holds its recursion, whose block holds this run. (Unfinished, an
        // action may still hold the token: the records are left alone.)
        if finished { kept.removeAll() }
        return finished
    }

    private func ran(_ program: OneThreadProgram, within bound: Duration) -> Bool {
        guard kind == .subscription else {
            if insideHost { CurrentScheduler.run(as: host) { top(program) } } else { top(program) }
            return token.close(within: bound)
        }
        let target: any Scheduler
        if insideHost {
            let ended = Signal()
            host.schedule { [self] in
                top(program)
                ended.fire()
            }
            guard ended.wait(bound) else { return false }
            target = host
        } else {
            let release = Signal()
            let caller = pthread_self()
            scheduler.schedule { [self] in
                background.withLock { $0 = CurrentScheduler.value }
                // Run inline, on the caller's thread, it would wait for itself.
                if pthread_equal(caller, pthread_self()) == 0 { _ = release.wait(bound) }
            }
            top(program)
            release.fire()
            target = scheduler
        }
        return drained(through: target, within: bound) && token.close(within: bound)
    }

    /// Whether some action started where these profiles never start one.
    var strayed: Bool { token.strayed }

    /// The program's calls at the top, in order.
    private func top(_ program: OneThreadProgram) {
        guard token.enter() else { return }
        for (index, call) in program.calls.enumerated() {
            perform(call)
            events.append(.returned(call: index, current: seen))
        }
        token.leave()
    }

    /// Queues sentinels behind the program's work until one finds nothing ran since the one
    /// before it. First in first out, everything queued before a sentinel ran before it, and
    /// a run's reschedules were queued when it returned, so the next sentinel waits for them.
    private func drained(through target: any Scheduler, within bound: Duration) -> Bool {
        let deadline = ContinuousClock.now + bound
        var last = -1
        while ContinuousClock.now < deadline {
            let ran = Signal()
            target.schedule { [self] in
                if token.enter() {
                    progress.store(events.count, ordering: .relaxed)
                    token.leave()
                }
                ran.fire()
            }
            guard ran.wait(bound) else { return false }
            let seen = progress.load(ordering: .relaxed)
            if seen == last { return true }
            last = seen
        }
        return false
    }

    private var seen: ProgramEvent.Seen {
        let current = CurrentScheduler.value
        if current === scheduler { return .subject }
        if insideHost ? (current === host) : (current == nil) { return .caller }
        if let current, current === background.withLock({ $0 }) { return .background }
        return .other
    }

    private func perform(_ call: ProgramCall) {
        switch call {
        case .schedule(let n, let body):
            let key = take(n)
            let handle = scheduler.schedule { [self] in
                guard token.enter() else { return }
                let run = start(n)
                for call in body { perform(call) }
                events.append(.ended(n, run: run))
                token.leave()
            }
            record(handle, of: key)
        case .recurse(let n, let runs, let late, let body):
            let key = take(n)
            let done = Box(0)
            let handle = scheduler.scheduleRecursive { [self] reschedule in
                guard token.enter() else { return }
                defer { token.leave() }
                let run = start(n)
                for call in body { perform(call) }
                done.value += 1
                if late {
                    kept[n] = reschedule
                } else if done.value < runs {
                    reschedule()
                }
                events.append(.ended(n, run: run))
            }
            record(handle, of: key)
        case .reschedule(let n):
            kept[n]?()
        case .dispose(let n):
            latest[n]?.dispose()
        }
    }

    private func take(_ n: Int) -> ProgramHandleKey {
        numbering.schedule(n)
    }

    private func start(_ n: Int) -> Int {
        let run = numbering.run(n)
        events.append(.started(n, run: run, current: judgesInside ? seen : .unjudged))
        return run
    }

    private func record(_ handle: (any Disposable)?, of key: ProgramHandleKey) {
        handles[key] = handle != nil
        latest[key.n] = handle
    }
}
