import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// LIN-7: programs one thread runs against a virtual-time scheduler, every call of the
/// protocol (present, past, equal and far deadlines, repeating work, recursion, disposal,
/// `now`, every driving call) at the top and from inside actions, ticks and runs, each judged
/// event by event against ``VirtualProgramModel``, shrunk when refused and replayable.
enum VirtualPrograms {
    /// Programs per exploration: a few thousand take a few tenths of a second in a release
    /// build; a tenth of them under the sanitizer, which looks for races, not rare programs.
    static let programs = ThreadSanitizerBuild.isEnabled ? 300 : 3_000
    /// How long the helper thread running them may take before the subject is called stuck;
    /// shrinking a refused program may take a quarter of it.
    static let bound = Duration.seconds(20)
    /// Runs at most that shrinking a refused program may make.
    static let shrinkingRuns = 2_000
    /// How long work still running when a program ended may take to return before the
    /// subject is refused without its events.
    static let wait = Duration.seconds(3)

    static func explore(_ context: RuleContext) throws(RuleFailure) {
        let capabilities = context.subject.capabilities
        let tracksCurrent = capabilities.contains(.tracksCurrent)
        // Where a step may run everything due at its instant (VT-13), no program steps; nor
        // does one schedule through a door the subject does not claim.
        let doors = VirtualProgram.Doors(
            steps: capabilities.contains(.singleStep), timers: capabilities.contains(.timers),
            repeating: capabilities.contains(.repeating))
        let name = context.subject.name
        let outcome = try ProgramExploration.explore(
            context, programs: programs, within: bound, generate: { VirtualProgram.generate(&$0, doors: doors) },
            judging: { () throws(RuleFailure) in
                let judge = VirtualProgramJudge(
                    make: { context.makeScheduler() as? any VirtualTimeScheduler }, tracksCurrent: tracksCurrent,
                    shrinkingTime: bound / 4)
                return { program, seed throws(RuleFailure) in
                    guard let refusal = try judge.refusal(program) else { return nil }
                    return try judge.report(program, refusal, seed: seed, subject: name)
                }
            })
        if let failure = outcome.failure { throw RuleFailure(failure) }
        context.note("\(outcome.ran) one-thread virtual-time programs, each as the model runs it")
    }
}

/// Runs programs, each against a fresh scheduler of the subject, and compares their events
/// with the model's.
private struct VirtualProgramJudge {
    let make: @Sendable () -> (any VirtualTimeScheduler)?
    let tracksCurrent: Bool
    let shrinkingTime: Duration

    struct Refusal {
        var expected: [VirtualProgramEvent]
        var got: [VirtualProgramEvent]
        /// Some work started outside a driving call, or beside other work.
        var strayed: Bool
        /// Work still ran ``VirtualPrograms/wait`` after the program ended.
        var stuck = false
    }

    func refusal(_ program: VirtualProgram) throws(RuleFailure) -> Refusal? {
        guard let scheduler = make() else {
            throw RuleFailure("claims virtualTime but its scheduler is no VirtualTimeScheduler", kind: .error)
        }
        let run = VirtualProgramRun(scheduler: scheduler, tracksCurrent: tracksCurrent)
        guard run.run(program, within: VirtualPrograms.wait) else {
            return Refusal(expected: [], got: [], strayed: run.strayed, stuck: true)
        }
        let expected = VirtualProgramModel.events(of: program, tracksCurrent: tracksCurrent, handles: run.handles)
        guard expected != run.events || run.strayed else { return nil }
        return Refusal(expected: expected, got: run.events, strayed: run.strayed)
    }

    /// The failure: the smallest program still refused, both event lists and where they part.
    func report(_ program: VirtualProgram, _ first: Refusal, seed: UInt64, subject: String) throws(RuleFailure)
        -> String
    {
        // The scheduler is known to be one: the first run made one.
        let (smallest, refused) = ProgramShrinking.smallest(
            program, first, within: shrinkingTime, runs: VirtualPrograms.shrinkingRuns
        ) { try? refusal($0) }
        let strayed = """

            Some work started outside a driving call, or while other work ran: a virtual-time \
            scheduler runs its work one at a time, only inside an advance or a step (that work's \
            events are not in the list).
            """
        let replay = "Replay: conformance replay --subject \(subject) --rule LIN-7 --seed \(seed)"
        if refused.stuck {
            return """
                one thread's program (seed \(seed)): work it led to still ran \(VirtualPrograms.wait) after it \
                ended, where a virtual-time scheduler runs its work only inside a driving call.
                Smallest program still stuck (\(smallest.size) calls; shrunk from \(program.size)):
                \(smallest)
                \(replay)
                """
        }
        return """
            one thread's program gives events no correct virtual-time scheduler gives (seed \(seed)).
            Smallest program still refused (\(smallest.size) calls; shrunk from \(program.size)):
            \(smallest)
            \(ProgramShrinking.parting(expected: refused.expected, got: refused.got))\(refused.strayed ? strayed : "")
            \(replay)
            """
    }
}

/// One run of a program against a fresh scheduler, recording what it saw.
///
/// @unchecked Sendable: its records are touched only by the thread holding its
/// ``ProgramToken``: the program's, which gives it up for each driving call only, and inside
/// one whichever thread runs the work (the driving thread, or a loop's own), so work that
/// starts outside a driving call, or beside other work, is refused, never raced. The actions
/// hold the run weakly: pending work left in the scheduler when the program ends must not
/// keep the run, and with it the scheduler, alive.
private final class VirtualProgramRun: @unchecked Sendable {
    let scheduler: any VirtualTimeScheduler
    let tracksCurrent: Bool
    private let origin: SchedulerTime
    private let token = ProgramToken()
    private(set) var events: [VirtualProgramEvent] = []
    private(set) var handles: [ProgramHandleKey: Bool] = [:]
    private var numbering = ProgramNumbering()
    private var latest: [Int: any Disposable] = [:]
    /// Each series' own handle, which its ticks hold (to dispose it in the last): one still
    /// pending when the program ends holds its closure, and the closure this box.
    private var series: [Box<(any Disposable)?>] = []

    init(scheduler: any VirtualTimeScheduler, tracksCurrent: Bool) {
        self.scheduler = scheduler
        self.tracksCurrent = tracksCurrent
        origin = scheduler.now
    }

    /// Runs `program`; false when work that started inside it had not returned within
    /// `bound` of its end, so the records cannot be read.
    func run(_ program: VirtualProgram, within bound: Duration) -> Bool {
        let finished = ran(program, within: bound)
        // Unfinished, work may still hold the token: the records are left alone.
        guard finished else { return false }
        for own in series {
            own.value?.dispose()
            own.value = nil
        }
        return true
    }

    private func ran(_ program: VirtualProgram, within bound: Duration) -> Bool {
        guard token.enter() else { return token.close(within: bound) }
        for (index, call) in program.calls.enumerated() {
            guard perform(call) else { return token.close(within: bound) }
            events.append(.returned(call: index, now: elapsed))
        }
        token.leave()
        return token.close(within: bound)
    }

    /// Whether some work started outside a driving call, or beside other work.
    var strayed: Bool { token.strayed }

    /// Runs a driving call with the token given up to the work it runs; false when the
    /// program cannot take it back (work still running), which ends the program.
    private func driving(_ drive: () -> Void) -> Bool {
        token.leave()
        drive()
        return token.enter()
    }

    /// Nanoseconds since the program began, as `now` says.
    private var elapsed: Int64 { Int64(bitPattern: scheduler.now.nanoseconds &- origin.nanoseconds) }

    /// The time `nanoseconds` after the program began (the origin itself for an earlier one).
    private func time(_ nanoseconds: Int64) -> SchedulerTime {
        (try? origin.advanced(by: .nanoseconds(nanoseconds))) ?? origin
    }

    /// Makes `call`; false when a driving call ends with work still running.
    @discardableResult
    private func perform(_ call: VirtualProgramCall) -> Bool {
        switch call {
        case .schedule(let n, let body):
            let key = take(n)
            record(scheduler.schedule { [weak self] in self?.runBody(n, body) }, of: key)
        case .scheduleAt(let n, let offset, let body):
            let key = take(n)
            let deadline = time(VirtualProgramTime.deadline(offset: offset, now: elapsed))
            do {
                record(try scheduler.schedule(at: deadline) { [weak self] in self?.runBody(n, body) }, of: key)
            } catch {
                events.append(.threw(n))
            }
        case .repeating(let n, let offset, let interval, let leeway, let ticks, let body):
            let key = take(n)
            let start = time(VirtualProgramTime.firstTick(offset: offset, now: elapsed))
            // Its last tick disposes it: its own handle, whatever later schedules of n return.
            let own = Box<(any Disposable)?>(nil)
            series.append(own)
            let done = Box(0)
            do {
                let handle = try scheduler.schedule(
                    at: start, repeatingEvery: .milliseconds(interval), leeway: .milliseconds(leeway)
                ) { [weak self] in
                    guard let self, token.enter() else { return }
                    defer { token.leave() }
                    let run = self.start(n)
                    for call in body { perform(call) }
                    done.value += 1
                    if done.value == ticks { own.value?.dispose() }
                    events.append(.ended(n, run: run))
                }
                own.value = handle
                record(handle, of: key)
            } catch {
                events.append(.threw(n))
            }
        case .recurse(let n, let runs, let early, let body):
            let key = take(n)
            let done = Box(0)
            let handle = scheduler.scheduleRecursive { [weak self] reschedule in
                guard let self, token.enter() else { return }
                defer { token.leave() }
                let run = start(n)
                done.value += 1
                let again = done.value < runs
                if again && early { reschedule() }
                for call in body { perform(call) }
                if again && !early { reschedule() }
                events.append(.ended(n, run: run))
            }
            record(handle, of: key)
        case .dispose(let n):
            latest[n]?.dispose()
        case .now:
            events.append(.now(elapsed))
        case .advanceBy(let ms):
            var threw = false
            guard driving({ threw = (try? scheduler.advance(by: .milliseconds(ms))) == nil }) else { return false }
            if threw { events.append(.threw(-1)) }
        case .advanceTo(let ms):
            let target = time(Int64(ms) * VirtualProgramTime.millisecond)
            return driving { scheduler.advance(to: target) }
        case .step(let count):
            var ran = 0
            guard driving({ ran = scheduler.step(count) }) else { return false }
            events.append(.stepped(ran))
        }
        return true
    }

    private func runBody(_ n: Int, _ body: [VirtualProgramCall]) {
        guard token.enter() else { return }
        defer { token.leave() }
        let run = start(n)
        for call in body { perform(call) }
        events.append(.ended(n, run: run))
    }

    private func take(_ n: Int) -> ProgramHandleKey {
        numbering.schedule(n)
    }

    private func start(_ n: Int) -> Int {
        let run = numbering.run(n)
        let current = tracksCurrent ? CurrentScheduler.value.map { $0 === scheduler } ?? false : nil
        events.append(.started(n, run: run, at: elapsed, asCurrent: current))
        return run
    }

    private func record(_ handle: (any Disposable)?, of key: ProgramHandleKey) {
        handles[key] = handle != nil
        latest[key.n] = handle
    }
}
