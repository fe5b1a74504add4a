import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// LIN-6: programs one thread runs against an immediate or trampoline scheduler, every call
/// of the two at the top and from inside actions, each judged event by event against
/// ``OneThreadModel``, shrunk when refused and replayable from its seed.
enum OneThreadPrograms {
    /// Programs per exploration: a few thousand take a few hundredths of a second in a release
    /// build, a few seconds in a loaded debug one; a tenth of them under the sanitizer, which
    /// runs about ten times slower and looks for races, not for rare programs.
    static let programs = ThreadSanitizerBuild.isEnabled ? 300 : 3_000
    /// How long the helper thread running them may take before the subject is called stuck;
    /// shrinking a refused program may take a quarter of it.
    static let bound = Duration.seconds(20)
    /// Runs at most that shrinking a refused program may make.
    static let shrinkingRuns = 2_000

    static func explore(_ context: RuleContext) throws(RuleFailure) {
        let capabilities = context.subject.capabilities
        let kind: OneThreadModel.Kind = capabilities.contains(.trampoline) ? .trampoline : .immediate
        let tracksCurrent = capabilities.contains(.tracksCurrent)
        let exploration = context.exploration
        let first = exploration.seed ?? UInt64.random(in: 0 ... .max)
        let count = exploration.replay ? 1 : programs
        let name = context.subject.name
        let outcome = try context.onFreshThread(within: bound) {
            () throws(RuleFailure) -> (failure: String?, ran: Int) in
            let judge = ProgramJudge(
                scheduler: context.makeScheduler(), kind: kind, tracksCurrent: tracksCurrent,
                shrinkingTime: bound / 4)
            for index in 0..<count {
                let seed = first &+ UInt64(index)
                var random = SplitMix64(seed: seed)
                let program = OneThreadProgram.generate(&random)
                if judge.refusal(program) != nil {
                    return (judge.report(program, seed: seed, subject: name), index + 1)
                }
            }
            return (nil, count)
        }
        if let failure = outcome.failure { throw RuleFailure(failure) }
        context.note("\(outcome.ran) one-thread programs, each as the \(kind) model runs it")
    }
}

/// Runs programs against one subject on the calling thread and compares their events with
/// the model's.
private struct ProgramJudge {
    let scheduler: any Scheduler
    let kind: OneThreadModel.Kind
    let tracksCurrent: Bool
    let shrinkingTime: Duration
    let host = QueueScheduler(name: "LIN-6 host")

    /// The model's events and the subject's, when they differ, and whether some action
    /// started on another thread than the program's (which neither profile ever does).
    func refusal(_ program: OneThreadProgram) -> (expected: [ProgramEvent], got: [ProgramEvent], strayed: Bool)? {
        let run = ProgramRun(scheduler: scheduler, host: host, judgesInside: tracksCurrent || kind == .immediate)
        run.run(program)
        let expected = OneThreadModel.events(of: program, kind, tracksCurrent: tracksCurrent, handles: run.handles)
        let strayed = run.strayed
        return expected == run.events && !strayed ? nil : (expected, run.events, strayed)
    }

    /// The failure: the smallest program still refused, both event lists and where they part.
    func report(_ program: OneThreadProgram, seed: UInt64, subject: String) -> String {
        var smallest = program
        var runs = 0
        var shrank = true
        let deadline = ContinuousClock.now + shrinkingTime
        while shrank && runs < OneThreadPrograms.shrinkingRuns && ContinuousClock.now < deadline {
            shrank = false
            for candidate in smallest.shrinks {
                runs += 1
                if refusal(candidate) != nil {
                    smallest = candidate
                    shrank = true
                    break
                }
                if runs >= OneThreadPrograms.shrinkingRuns { break }
            }
        }
        guard let refused = refusal(smallest) else {
            return "one thread's program (seed \(seed)) was refused once and not again:\n\(program)"
        }
        let (expected, got, strayed) = refused
        let common = min(expected.count, got.count)
        let at = (0..<common).first { expected[$0] != got[$0] } ?? common
        func event(_ events: [ProgramEvent]) -> String { at < events.count ? "\(events[at])" : "nothing more" }
        return """
            one thread's program gives events no correct \(kind) scheduler gives (seed \(seed)).
            Smallest program still refused (\(smallest.size) calls; shrunk from \(program.size)):
            \(smallest)
            They part at event \(at + 1): the model has \(event(expected)), the subject \(event(got)).
            The model: \(expected.map(\.description).joined(separator: "; "))
            The subject: \(got.map(\.description).joined(separator: "; "))\(strayed ? Self.strayedNote : "")
            Replay: conformance replay --subject \(subject) --rule LIN-6 --seed \(seed)
            """
    }

    private static let strayedNote = """

        Some action started on another thread than the program's: a synchronous scheduler runs \
        every action on the thread that called it (that action's events are not in the list).
        """
}

/// One run of a program against the subject, recording what it saw.
///
/// @unchecked Sendable: its records are touched by the thread that made it only. The two
/// profiles LIN-6 judges run work on the caller's thread; an action a subject starts on
/// another thread (one that claims to be synchronous and is not) touches nothing but
/// ``strayed``, so such a subject is refused, never raced.
private final class ProgramRun: @unchecked Sendable {
    let scheduler: any Scheduler
    let host: any Scheduler
    let judgesInside: Bool
    private let owner = pthread_self()
    private let straying = Atomic(false)
    private(set) var events: [ProgramEvent] = []
    private(set) var handles: [ProgramHandleKey: Bool] = [:]
    private var insideHost = false
    private var instances: [Int: Int] = [:]
    private var starts: [Int: Int] = [:]
    private var latest: [Int: any Disposable] = [:]
    private var kept: [Int: @Sendable () -> Void] = [:]

    init(scheduler: any Scheduler, host: any Scheduler, judgesInside: Bool) {
        self.scheduler = scheduler
        self.host = host
        self.judgesInside = judgesInside
    }

    func run(_ program: OneThreadProgram) {
        insideHost = program.insideHost
        let calls = {
            for (index, call) in program.calls.enumerated() {
                self.perform(call)
                self.events.append(.returned(call: index, current: self.seen))
            }
        }
        if program.insideHost { CurrentScheduler.run(as: host, calls) } else { calls() }
        // A kept reschedule holds its recursion, whose block holds this run.
        kept.removeAll()
    }

    /// Whether some action started on another thread than the program's.
    var strayed: Bool { straying.load(ordering: .acquiring) }

    /// Whether an action starting now runs on the program's thread; records it when not.
    private func onOwnThread() -> Bool {
        if pthread_equal(owner, pthread_self()) != 0 { return true }
        straying.store(true, ordering: .releasing)
        return false
    }

    private var seen: ProgramEvent.Seen {
        let current = CurrentScheduler.value
        if current === scheduler { return .subject }
        if insideHost ? (current === host) : (current == nil) { return .caller }
        return .other
    }

    private func perform(_ call: ProgramCall) {
        switch call {
        case .schedule(let n, let body):
            let key = take(n)
            let handle = scheduler.schedule { [self] in
                guard onOwnThread() else { return }
                let run = start(n)
                for call in body { perform(call) }
                events.append(.ended(n, run: run))
            }
            record(handle, of: key)
        case .recurse(let n, let runs, let late, let body):
            let key = take(n)
            let done = Box(0)
            let handle = scheduler.scheduleRecursive { [self] reschedule in
                guard onOwnThread() else { return }
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
        defer { instances[n, default: 0] += 1 }
        return ProgramHandleKey(n: n, instance: instances[n, default: 0])
    }

    private func start(_ n: Int) -> Int {
        defer { starts[n, default: 0] += 1 }
        let run = starts[n, default: 0]
        events.append(.started(n, run: run, current: judgesInside ? seen : .unjudged))
        return run
    }

    private func record(_ handle: (any Disposable)?, of key: ProgramHandleKey) {
        handles[key] = handle != nil
        latest[key.n] = handle
    }
}
