import Dispatch
import Foundation
import SchedulerConformance
import Subprocess
import Synchronization

/// The parent side of isolation: runs a subject's rules in a child `conformance --worker`
/// process, restarting it after a crash or a hang so every rule gets a result.
///
/// States of one rule while a worker runs: 1. not started; 2. started (a `start` line
/// arrived, its watchdog deadline set); 3. finished (a `result` line arrived). A worker
/// that exits with a rule in state 2 crashed in it (`error`); one still in state 2 at the
/// deadline hung (`timeout`, stacks taken with gdb, then the worker is killed).
enum Supervisor {
    static func run(subject: ConformanceSubject, rules: [Rule], timing: Timing) -> [RuleResult] {
        var results: [String: RuleResult] = [:]
        var pending = rules.filter { rule in
            if let reason = rule.skipReason(for: subject.capabilities) {
                results[rule.id] = RuleResult(rule: rule.id, status: .skipped, durationSeconds: 0, message: reason)
                return false
            }
            return true
        }
        while !pending.isEmpty {
            let batch = pending
            let outcome = blocking { await runWorker(subject: subject, rules: batch, timing: timing) }
            for result in outcome.results { results[result.rule] = result }
            if let abort = outcome.abort { results[abort.rule] = abort }
            let unfinished = pending.filter { results[$0.id] == nil }
            if unfinished.count == pending.count {
                // The worker died before starting anything: every remaining rule is an error.
                for rule in unfinished {
                    results[rule.id] = RuleResult(rule: rule.id, status: .error, durationSeconds: 0, message: "the worker process failed before this rule: \(outcome.failure ?? "unknown")")
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
        var timedOut: RuleResult?
    }

    private static func runWorker(subject: ConformanceSubject, rules: [Rule], timing: Timing) async -> Outcome {
        let executable = CommandLine.arguments[0]
        let timingJSON = String(decoding: (try? JSONEncoder().encode(timing)) ?? Data(), as: UTF8.self)
        let arguments = ["--worker", subject.name, "--timing-json", timingJSON, "--rule", rules.map(\.id).joined(separator: ",")]
        let progress = Box(Progress())
        do {
            let execution = try await Subprocess.run(
                .path(.init(executable)), arguments: .init(arguments),
                input: .none, output: .sequence, error: .string(limit: 1 << 22)
            ) { execution in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await line in execution.standardOutput.strings() {
                            record(line, into: progress)
                        }
                    }
                    group.addTask {
                        try await watch(progress, pid: execution.processIdentifier.value, timeout: timing.ruleTimeout) {
                            try? execution.send(signal: .kill)
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
            let state = progress.value
            var outcome = Outcome(results: state.results)
            if let timedOut = state.timedOut {
                outcome.abort = timedOut
            } else if let running = state.running {
                outcome.abort = RuleResult(
                    rule: running.id, status: .error,
                    durationSeconds: (ContinuousClock.now - running.started).timeInterval,
                    message: "the worker process died (\(execution.terminationStatus)): \(crashReason(execution.standardError))",
                    threadDump: String(execution.standardError.suffix(1 << 16))
                )
            } else if !execution.terminationStatus.isSuccess {
                outcome.failure = "\(execution.terminationStatus): \(crashReason(execution.standardError))"
            }
            return outcome
        } catch {
            return Outcome(results: progress.value.results, failure: "could not run the worker: \(error)")
        }
    }

    private static func record(_ line: String, into progress: Box<Progress>) {
        guard line.hasPrefix(Worker.prefix) else { return }
        let message = line.dropFirst(Worker.prefix.count)
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

    /// Polls the running rule's age; past `timeout` it takes a thread dump, records the
    /// timeout and kills the worker.
    private static func watch(_ progress: Box<Progress>, pid: Int32, timeout: Duration, kill: @Sendable () -> Void) async throws {
        while true {
            try await Task.sleep(for: .milliseconds(100))
            guard let running = progress.value.running, ContinuousClock.now - running.started > timeout else { continue }
            let dump = await ThreadDump.take(pid: pid)
            progress.update { state in
                state.timedOut = RuleResult(
                    rule: running.id, status: .timeout, durationSeconds: (ContinuousClock.now - running.started).timeInterval,
                    message: "did not finish within \(timeout); the worker was killed" + (dump == nil ? " (gdb unavailable: no stacks)" : ""),
                    threadDump: dump
                )
                state.running = nil
            }
            kill()
            return
        }
    }

    /// The line of a crash report that says why (Swift's "Fatal error: …"), or the last line.
    private static func crashReason(_ stderr: String) -> String {
        let lines = stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let reason = lines.first { $0.contains("Fatal error") || $0.contains("Crash") || $0.contains("error:") } ?? lines.last
        return reason ?? "nothing on stderr"
    }
}

/// Runs an async body to completion from synchronous code (the command is synchronous so
/// that workers keep their main thread for the main run loop).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }!
}
