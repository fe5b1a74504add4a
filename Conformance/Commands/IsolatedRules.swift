import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerDiagnostics

/// A subject's rules run in worker processes: a rule that hangs becomes `timeout` (with
/// every thread's stack when gdb is installed), one that crashes the process becomes
/// `error` with its fatal line, and every other rule still gets its result.
enum IsolatedRules {
    /// The results of `rules` on `subject`, in worker processes, or in this process when
    /// `inProcess` (no crash isolation). The workers are this executable unless another
    /// build of the same tool is named (`conformance mutate` runs its schemata build), and
    /// get this process's environment with `environment` added. With `stopAtFirstKill`, the
    /// batch ends at the first rule that fails, hangs or crashes, and the rules after it are
    /// `notRunAfterKill`.
    static func run(
        subject: ConformanceSubject, rules: [Rule], timing: Timing, exploration: Exploration = .standard,
        inProcess: Bool = false, executable: String = CommandLine.arguments[0], environment: [String: String] = [:],
        memoryCap: UInt64 = WorkerProcess.defaultMemoryCap, stopAtFirstKill: Bool = false
    ) -> [RuleResult] {
        if inProcess {
            return ConformanceRunner.run(
                subject, rules: rules, timing: timing, trapProbe: TrapProbeProcess.runner(), exploration: exploration)
        }
        var results: [String: RuleResult] = [:]
        let applicable = rules.filter { rule in
            guard let reason = rule.skipReason(for: subject) else { return true }
            results[rule.id.rawValue] = RuleResult(
                rule: rule.id, level: rule.level, status: .skipped, durationSeconds: 0, message: reason)
            return false
        }
        let timingJSON = String(decoding: (try? JSONEncoder().encode(timing)) ?? Data(), as: UTF8.self)
        let explorationJSON = String(decoding: (try? JSONEncoder().encode(exploration)) ?? Data(), as: UTF8.self)
        let outcomes = Supervisor.run(
            items: applicable.map(\.id.rawValue), executable: executable, environment: environment,
            allowance: timing.ruleTimeout, memoryCap: memoryCap,
            stopAtFirstKill: stopAtFirstKill
        ) {
            remaining in
            [
                "worker", "--subject", subject.name, "--timing-json", timingJSON, "--exploration-json",
                explorationJSON, "--rule",
                remaining.joined(separator: ","),
            ] + (stopAtFirstKill ? ["--stop-at-first-kill"] : [])
        }
        for rule in applicable {
            guard stopAtFirstKill, outcomes[rule.id.rawValue] == nil else {
                results[rule.id.rawValue] = result(
                    of: rule, outcomes[rule.id.rawValue], timing: timing, memoryCap: memoryCap)
                continue
            }
            results[rule.id.rawValue] = RuleResult(
                rule: rule.id, level: rule.level, status: .skipped, durationSeconds: 0,
                message: Self.notRunAfterKill)
        }
        return rules.map { results[$0.id.rawValue]! }
    }

    /// The message of a rule left out because an earlier one of its batch failed, hung or
    /// crashed the worker.
    static let notRunAfterKill = "not run: an earlier rule of the batch failed, hung or crashed the worker"

    /// The calls into the subject that had not returned when `stacks` were taken, or where
    /// there were none, the threads inside the subject's code (a runaway on a thread or a
    /// task of its own, where no call of the suite's is below it).
    private static func whereTheSubjectWas(_ stacks: String) -> [HangDiagnosis.StuckCall] {
        let calls = HangDiagnosis.stuckCalls(in: stacks)
        return calls.isEmpty ? HangDiagnosis.stuckCalls(in: stacks, calledOrNot: true) : calls
    }

    private static func result(
        of rule: Rule, _ outcome: Supervisor.Outcome?, timing: Timing, memoryCap: UInt64
    ) -> RuleResult {
        switch outcome {
        case .finished(.rule(let result)):
            return result
        case .timedOut(let seconds, let stacks):
            let stuck = stacks.map(whereTheSubjectWas) ?? []
            return RuleResult(
                rule: rule.id, level: rule.level, status: .timeout, durationSeconds: seconds,
                message: "did not finish within \(timing.ruleTimeout); the worker was killed"
                    + (stacks == nil ? " (gdb unavailable: no stacks)" : "")
                    + stuck.map { "; stuck in `\($0.frame)`, called from thread \"\($0.threadName)\"" }.joined(),
                threadDump: stacks.map { HangDiagnosis.ordered($0, first: stuck.compactMap(\.threadID)) })
        case .outgrew(let seconds, let bytes, let stacks):
            return RuleResult(
                rule: rule.id, level: rule.level, status: .error, durationSeconds: seconds,
                message: "the subject grew to \(Supervisor.gibibytes(bytes)) of resident memory during this rule, past"
                    + " the worker's cap of \(Supervisor.gibibytes(memoryCap)) (--worker-memory); the worker was killed"
                    + (stacks == nil ? " (gdb unavailable: no stacks)" : "")
                    + (stacks.map(whereTheSubjectWas) ?? []).map {
                        "; in `\($0.frame)` on thread \"\($0.threadName)\""
                    }.joined(),
                threadDump: stacks)
        case .crashed(let seconds, let reason, let standardError):
            return RuleResult(
                rule: rule.id, level: rule.level, status: .error, durationSeconds: seconds,
                message: "the worker process died (\(reason))", threadDump: standardError)
        case .notRun(let reason):
            return RuleResult(
                rule: rule.id, level: rule.level, status: .error, durationSeconds: 0,
                message: "the worker failed before this rule: \(reason)")
        case .finished, nil:
            return RuleResult(
                rule: rule.id, level: rule.level, status: .error, durationSeconds: 0,
                message: "the worker sent no result for this rule")
        }
    }
}
