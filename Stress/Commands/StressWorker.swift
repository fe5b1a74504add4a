import CommandSupport
import Foundation
import SchedulerProbes
import SchedulerStress
import SchedulerVocabulary

/// The child side of ``IsolatedRun``: runs one scenario against one subject and sends its
/// result. The scenario runs on a thread of its own while the main thread drives the main
/// run loop, so the main-thread scheduler works here too.
enum StressWorker {
    static func run(_ plan: RunPlan, scenario: StressScenario, subject: ConformanceSubject) {
        WorkerMessage.started(item: plan.scenario.rawValue).send()
        let duration = Duration.nanoseconds(Int64(plan.durationSeconds * 1e9))
        let context = StressContext(subject: subject, threads: plan.threads, duration: duration, seed: plan.seed)
        let result = Box<StressRun?>(nil)
        Thread {
            let start = ContinuousClock.now
            var failure: StressFailure?
            do throws(StressFailure) { try scenario.run(context) } catch { failure = error }
            var run = StressRun(
                scenario: scenario, context: context, duration: ContinuousClock.now - start, failure: failure)
            if run.status != .passed { run.reproduce = plan.reproduce }
            result.value = run
            // Wakes the main run loop, which sleeps until the main queue has work: a loop that
            // woke every 50 ms to look grew the heap by about 135 bytes a wake (Foundation's
            // run loop on Linux), which the soak took for the subject's leak.
            DispatchQueue.main.async {}
        }.start()
        while result.value == nil {
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
        WorkerMessage.stress(result.value!).send()
    }
}
