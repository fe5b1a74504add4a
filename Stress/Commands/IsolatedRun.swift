import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

/// One scenario × subject run in a worker process of its own: a hang becomes `timeout`
/// with every thread's stack, a crash `error` with its fatal line, and allocation counts
/// see only this run.
enum IsolatedRun {
    /// Runs `plan`; past its budget plus `grace` (time to finish the last round) it is a hang.
    static func run(
        _ plan: RunPlan, scenario: StressScenario, subject: ConformanceSubject, jemalloc: String?, grace: Duration
    ) -> StressRun {
        var environment: [String: String] = [:]
        if let jemalloc {
            environment["LD_PRELOAD"] = jemalloc
            // Thread caches would hide other threads' recent allocations from the counters,
            // so they are off, except for the benchmarks: their timings must see the allocator
            // as applications do. With the caches off every allocation takes an arena's lock,
            // which weighs on the side that allocates more: the reference executor (before its
            // batches) measured 1.37-1.39x the bare one with them off, 1.19-1.20x with them on.
            if !scenario.isBenchmark { environment["MALLOC_CONF"] = "tcache:false" }
        }
        let allowance = Duration.nanoseconds(Int64(plan.durationSeconds * 1e9)) + grace
        let item = plan.scenario.rawValue
        let outcome = Supervisor.run(items: [item], environment: environment, allowance: allowance) { _ in
            plan.workerArguments
        }[item]
        var run: StressRun
        switch outcome {
        case .finished(.stress(let finished)):
            return finished
        case .timedOut(let seconds, let stacks):
            run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .timeout,
                message: "no result \(grace) past the budget; the worker was killed"
                    + (stacks == nil ? " (gdb unavailable: no stacks)" : ""),
                durationSeconds: seconds, diagnostics: stacks)
        case .outgrew(let seconds, let bytes, let stacks):
            run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .error,
                message:
                    """
                    the subject grew to \(Supervisor.gibibytes(bytes)) of resident memory, past the worker's cap; it \
                    was killed
                    """
                        + (stacks == nil ? " (gdb unavailable: no stacks)" : ""),
                durationSeconds: seconds, diagnostics: stacks)
        case .crashed(let seconds, let reason, let standardError):
            run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .error,
                message: "the worker process died (\(reason))", durationSeconds: seconds, diagnostics: standardError)
        case .notRun(let reason):
            run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .error,
                message: "the worker failed: \(reason)")
        case .finished, nil:
            run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .error,
                message: "the worker sent no result")
        }
        run.reproduce = plan.reproduce
        return run
    }
}
