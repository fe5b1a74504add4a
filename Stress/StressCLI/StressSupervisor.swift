import Foundation
import ProcessIsolation
import SchedulerConformance
import SchedulerStress

/// The parent side: one child process per scenario × subject under a watchdog, so a hang
/// becomes `timeout` with every thread's stack and a crash becomes `error` with its stderr.
enum StressSupervisor {
    /// Runs `plan` in a child process; past its budget plus `grace` (time to finish the last
    /// round) it is a hang.
    static func run(_ plan: RunPlan, scenario: StressScenario, subject: ConformanceSubject, jemalloc: String?, grace: Duration) -> StressRun {
        let result = Box<StressRun?>(nil)
        let started = ContinuousClock.now
        let deadline = started + .nanoseconds(Int64(plan.durationSeconds * 1e9)) + grace
        var environment: [String: String] = [:]
        if let jemalloc {
            environment["LD_PRELOAD"] = jemalloc
            // Thread caches would hide other threads' recent allocations from the counters,
            // so they are off, except for the benchmark: its timings must see the allocator
            // as applications do, and all it counts is allocated on the thread that reads
            // (and flushes its own cache before reading).
            if scenario.id != "throughput" { environment["MALLOC_CONF"] = "tcache:false" }
        }
        let environmentForWorker = environment
        let exit = WorkerProcess.blocking {
            await WorkerProcess.run(
                executable: CommandLine.arguments[0], arguments: plan.workerArguments, environment: environmentForWorker,
                onLine: { line in
                    // The marker may follow output of the subject that was not newline-terminated.
                    guard let marker = line.range(of: StressWorker.prefix) else { return }
                    result.value = try? JSONDecoder().decode(StressRun.self, from: Data(line[marker.upperBound...].utf8))
                },
                deadline: { deadline }
            )
        }
        if let run = result.value { return run }
        let elapsed = (ContinuousClock.now - started).timeInterval
        if exit.timedOut {
            var run = StressRun(
                scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .timeout,
                message: "no result \(grace) past the budget; the worker was killed" + (exit.threadDump == nil ? " (gdb unavailable: no stacks)" : ""),
                durationSeconds: elapsed, diagnostics: exit.threadDump)
            run.reproduce = plan.reproduce
            return run
        }
        var run = StressRun(
            scenario: scenario, subject: subject, threads: plan.threads, seed: plan.seed, status: .error,
            message: "the worker process died (\(exit.crashReason))", durationSeconds: elapsed,
            diagnostics: String(exit.standardError.suffix(1 << 16)))
        run.reproduce = plan.reproduce
        return run
    }
}

/// Where jemalloc's shared library is, if installed.
enum JemallocLibrary {
    static let path: String? = {
        let folders = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
        return folders.map { $0 + "/libjemalloc.so.2" }.first { FileManager.default.fileExists(atPath: $0) }
    }()
}
