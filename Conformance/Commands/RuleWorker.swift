import CommandSupport
import Foundation
import SchedulerConformance

/// The child side of ``IsolatedRules``: runs one subject's rules in this process and
/// sends `started` before each rule and its result after, so the supervisor knows which
/// rule was running if this process dies or hangs. With `stopAtFirstKill` it exits after
/// the first result that fails, times out or errs.
enum RuleWorker {
    static func run(
        subject: ConformanceSubject, rules: [Rule], timing: Timing, exploration: Exploration,
        stopAtFirstKill: Bool = false
    ) {
        var timing = timing
        // The supervisor is the watchdog; this one only exists for hangs it cannot see.
        timing.ruleTimeout = timing.ruleTimeout * 4
        _ = ConformanceRunner.run(
            subject, rules: rules, timing: timing, stacksOnHang: true, trapProbe: TrapProbeProcess.runner(),
            exploration: exploration,
            willStart: { rule in
                MutationCoverage.ruleWillStart(subject: subject.name)
                WorkerMessage.started(item: rule.id.rawValue).send()
            },
            progress: { result in
                MutationCoverage.ruleFinished(subject: subject.name, rule: result.rule)
                WorkerMessage.rule(result).send()
                // The message is written unbuffered; a stuck subject's threads may still run,
                // so the process leaves without waiting for anything.
                if stopAtFirstKill, [.failed, .timeout, .error].contains(result.status) { _exit(0) }
            }
        )
    }
}
