import CommandSupport
import Foundation
import SchedulerConformance

/// The child side of ``IsolatedRules``: runs one subject's rules in this process and
/// sends `started` before each rule and its result after, so the supervisor knows which
/// rule was running if this process dies or hangs. It exits after a rule that left work
/// running (``Leftovers``) or timed out with its threads stuck, so the next rules get a
/// fresh worker, and with `stopAtFirstKill` after the first result that fails, times out or
/// errs.
enum RuleWorker {
    static func run(
        subject: ConformanceSubject, rules: [Rule], timing: Timing, exploration: Exploration,
        stopAtFirstKill: Bool = false
    ) {
        var timing = timing
        // The supervisor is the watchdog; this one only exists for hangs it cannot see.
        timing.ruleTimeout = timing.ruleTimeout * 4
        _ = ConformanceRunner.run(
            subject, rules: rules, timing: timing, ownsProcess: true, trapProbe: TrapProbeProcess.runner(),
            exploration: exploration,
            willStart: { rule in
                MutationCoverage.ruleWillStart(subject: subject.name)
                WorkerMessage.started(item: rule.id.rawValue).send()
            },
            progress: { result in
                MutationCoverage.ruleFinished(subject: subject.name, rule: result.rule.rawValue)
                var result = result
                // A skipped rule ran nothing of the subject's, so it left nothing running; the
                // look costs at least 4 ms, and most of a catalogue's rules skip each subject.
                let busy = result.status == .skipped ? [] : Leftovers.busyThreads()
                if !busy.isEmpty {
                    result.message =
                        (result.message.map { $0 + " " } ?? "")
                            + """
                            After this rule the subject was still running work (\(busy.count) thread(s) busy: \
                            \(busy.joined(separator: ", "))); the rules after it ran in a fresh worker.
                            """
                }
                // A rule that gave up on its threads left them where they were stuck: a rule
                // after it here would find them, and report them as its own.
                let retired = busy.isEmpty && result.status == .timeout
                if retired {
                    result.message =
                        (result.message.map { $0 + " " } ?? "")
                        + "The worker was retired with its stuck threads; the rules after it ran in a fresh one."
                }
                WorkerMessage.rule(result).send()
                // The message is written unbuffered; a stuck subject's threads may still run,
                // so the process leaves without waiting for anything. The supervisor starts a
                // fresh worker for the rules left, unless this one killed a mutant.
                if !busy.isEmpty || retired || (stopAtFirstKill && result.status.isFailure) {
                    _exit(0)
                }
            }
        )
    }
}
