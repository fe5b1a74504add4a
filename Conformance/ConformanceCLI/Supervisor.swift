import Foundation
import ProcessIsolation
import SchedulerConformance

/// The parent side of isolation: runs a subject's rules in a child `conformance --worker`
/// process, restarting it after a crash or a hang so every rule gets a result.
///
/// States of one rule while a worker runs: 1. not started; 2. started (a `start` line
/// arrived, which sets the watchdog's deadline); 3. finished (a `result` line arrived). A
/// worker that exits with a rule in state 2 crashed in it (`error`); one still in state 2
/// at the deadline hung (`timeout`, with stacks taken by gdb before the kill).
enum Supervisor {
    static func run(subject: ConformanceSubject, rules: [Rule], timing: Timing) -> [RuleResult] {
        var results: [String: RuleResult] = [:]
        var pending = rules.filter { rule in
            if let reason = rule.skipReason(for: subject) {
                results[rule.id] = RuleResult(rule: rule.id, level: rule.level, status: .skipped, durationSeconds: 0, message: reason)
                return false
            }
            return true
        }
        while !pending.isEmpty {
            let batch = pending
            let outcome = WorkerProcess.blocking { await runWorker(subject: subject, rules: batch, timing: timing) }
            for result in outcome.results { results[result.rule] = result }
            if let abort = outcome.abort { results[abort.rule] = abort }
            let unfinished = pending.filter { results[$0.id] == nil }
            if unfinished.count == pending.count {
                // The worker failed before starting anything: every remaining rule is an error.
                for rule in unfinished {
                    results[rule.id] = RuleResult(rule: rule.id, level: rule.level, status: .error, durationSeconds: 0, message: "the worker failed before this rule: \(outcome.failure ?? "unknown")")
                }
            }
            pending = unfinished.filter { results[$0.id] == nil }
        }
        return rules.map { results[$0.id]! }
    }

    private struct Outcome: Sendable {
        var results: [RuleResult] = []
        /// The rule that was running when the worker crashed or hung.
        var abort: RuleResult?
        var failure: String?
    }

    private struct Progress: Sendable {
        var running: (id: String, started: ContinuousClock.Instant)?
        var results: [RuleResult] = []
        /// When the worker last said anything: between rules, the watchdog times from here.
        var lastActivity = ContinuousClock.now
        /// Whether the watchdog fired; later lines are ignored.
        var watchdogFired = false
        /// The rule that was running when it fired (none if the worker hung between rules).
        var timedOut: (id: String, started: ContinuousClock.Instant)?
    }

    private static func runWorker(subject: ConformanceSubject, rules: [Rule], timing: Timing) async -> Outcome {
        let timingJSON = String(decoding: (try? JSONEncoder().encode(timing)) ?? Data(), as: UTF8.self)
        let progress = Box(Progress())
        let exit = await WorkerProcess.run(
            executable: CommandLine.arguments[0],
            arguments: ["--worker", subject.name, "--timing-json", timingJSON, "--rule", rules.map(\.id).joined(separator: ",")],
            onLine: { line in record(line, into: progress) },
            deadline: {
                let state = progress.value
                return (state.running?.started ?? state.lastActivity) + timing.ruleTimeout
            },
            onTimeout: {
                progress.update { state in
                    state.watchdogFired = true
                    state.timedOut = state.running
                }
            }
        )
        let state = progress.value
        let levels = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0.level) })
        var outcome = Outcome(results: state.results)
        if let running = state.timedOut ?? state.running {
            let elapsed = (ContinuousClock.now - running.started).timeInterval
            outcome.abort = exit.timedOut
                ? RuleResult(
                    rule: running.id, level: levels[running.id], status: .timeout, durationSeconds: elapsed,
                    message: "did not finish within \(timing.ruleTimeout); the worker was killed" + (exit.threadDump == nil ? " (gdb unavailable: no stacks)" : ""),
                    threadDump: exit.threadDump)
                : RuleResult(
                    rule: running.id, level: levels[running.id], status: .error, durationSeconds: elapsed,
                    message: "the worker process died (\(exit.crashReason))",
                    threadDump: String(exit.standardError.suffix(1 << 16)))
        } else if state.watchdogFired {
            outcome.failure = "the worker hung between rules for \(timing.ruleTimeout) and was killed"
        } else if !exit.succeeded {
            outcome.failure = exit.crashReason
        }
        return outcome
    }

    private static func record(_ line: String, into progress: Box<Progress>) {
        // The marker may follow output of the subject that was not newline-terminated.
        guard let marker = line.range(of: Worker.prefix), !progress.value.watchdogFired else { return }
        let message = line[marker.upperBound...]
        progress.update { $0.lastActivity = ContinuousClock.now }
        if message.hasPrefix("start ") {
            let id = String(message.dropFirst("start ".count))
            progress.update { $0.running = (id, ContinuousClock.now) }
        } else if message.hasPrefix("result "),
                  let result = try? JSONDecoder().decode(RuleResult.self, from: Data(message.dropFirst("result ".count).utf8)) {
            progress.update { state in
                state.results.append(result)
                if state.running?.id == result.rule { state.running = nil }
            }
        }
    }
}
