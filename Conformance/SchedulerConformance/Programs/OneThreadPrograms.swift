import Foundation
import SchedulerProbes
import Schedulers
import Synchronization

/// LIN-6: programs one thread runs against an immediate, trampoline or subscription
/// scheduler, every call of the two at the top and from inside actions, each judged event by
/// event against ``OneThreadModel``, shrunk when refused and replayable from its seed.
enum OneThreadPrograms {
    /// Programs per exploration: a few thousand take a few hundredths of a second in a release
    /// build (a subscription scheduler's, whose work crosses threads, a few tenths), a few
    /// seconds in a loaded debug one; a tenth of them under the sanitizer, which
    /// runs about ten times slower and looks for races, not for rare programs.
    static let programs = ThreadSanitizerBuild.isEnabled ? 300 : 3_000
    /// How long one program's work may take on a subscription scheduler, a sentinel behind it
    /// included, before the subject is called stuck.
    static let wait = Duration.seconds(3)
    /// How long the helper thread running them may take before the subject is called stuck;
    /// shrinking a refused program may take a quarter of it.
    static let bound = Duration.seconds(20)
    /// Runs at most that shrinking a refused program may make.
    static let shrinkingRuns = 2_000

    static func explore(_ context: RuleContext) throws(RuleFailure) {
        let capabilities = context.subject.capabilities
        let kind: OneThreadModel.Kind =
            capabilities.contains(.subscription)
            ? .subscription : capabilities.contains(.trampoline) ? .trampoline : .immediate
        let tracksCurrent = capabilities.contains(.tracksCurrent)
        let name = context.subject.name
        let outcome = try ProgramExploration.explore(
            context, programs: programs, within: bound, generate: { OneThreadProgram.generate(&$0) },
            judging: { () throws(RuleFailure) in
                let judge = ProgramJudge(
                    make: { context.makeScheduler() }, kind: kind, tracksCurrent: tracksCurrent,
                    shrinkingTime: bound / 4)
                return { program, seed in
                    judge.refusal(program).map { judge.report(program, $0, seed: seed, subject: name) }
                }
            })
        if let failure = outcome.failure { throw RuleFailure(failure) }
        context.note("\(outcome.ran) one-thread programs, each as the \(kind) model runs it")
    }
}

/// Runs programs, each against a fresh scheduler of the subject and a fresh host, and compares
/// their events with the model's: nothing one program left behind (work a stuck subject still
/// holds, a recursion kept) meets the next, or the shrinking of a refused one.
private struct ProgramJudge {
    let make: @Sendable () -> any Scheduler
    let kind: OneThreadModel.Kind
    let tracksCurrent: Bool
    let shrinkingTime: Duration

    /// How a run of a program departs from the model.
    struct Refusal {
        var expected: [ProgramEvent]
        var got: [ProgramEvent]
        /// Some action started where the profile never starts one (see ``ProgramRun``).
        var strayed: Bool
        /// The subject had not run the program's work within ``OneThreadPrograms/wait``.
        var stuck: Bool
    }

    /// How the subject's run of `program` departs from the model's, if it does.
    func refusal(_ program: OneThreadProgram) -> Refusal? {
        let run = ProgramRun(
            scheduler: make(), host: QueueScheduler(name: "LIN-6 host"), kind: kind,
            judgesInside: tracksCurrent || kind != .trampoline)
        guard run.run(program, within: OneThreadPrograms.wait) else {
            return Refusal(expected: [], got: [], strayed: run.strayed, stuck: true)
        }
        let expected = OneThreadModel.events(of: program, kind, tracksCurrent: tracksCurrent, handles: run.handles)
        guard expected != run.events || run.strayed else { return nil }
        return Refusal(expected: expected, got: run.events, strayed: run.strayed, stuck: false)
    }

    /// The failure: the smallest program still refused, both event lists and where they part.
    func report(_ program: OneThreadProgram, _ first: Refusal, seed: UInt64, subject: String) -> String {
        let (smallest, refused) = ProgramShrinking.smallest(
            program, first, within: shrinkingTime, runs: OneThreadPrograms.shrinkingRuns, refusal: refusal)
        let replay = "Replay: conformance replay --subject \(subject) --rule LIN-6 --seed \(seed)"
        if refused.stuck {
            return """
                one thread's program (seed \(seed)): the subject had not run its work within \
                \(OneThreadPrograms.wait) (a sentinel queued behind it did not run).
                Smallest program still stuck (\(smallest.size) calls; shrunk from \(program.size)):
                \(smallest)
                \(replay)
                """
        }
        let parting = ProgramShrinking.parting(expected: refused.expected, got: refused.got)
        return """
            one thread's program gives events no correct \(kind) scheduler gives (seed \(seed)).
            Smallest program still refused (\(smallest.size) calls; shrunk from \(program.size)):
            \(smallest)
            \(parting)\(refused.strayed ? Self.strayedNote : "")
            \(replay)
            """
    }

    private static let strayedNote = """

        Some action started on another thread while the program or another action ran, or after \
        the program's work was done: these profiles run one thing at a time, the synchronous ones \
        on the thread that called (that action's events are not in the list).
        """
}
