import Foundation
import SchedulerConformance
import SubjectCatalogue
import SchedulerStress

/// The child side: runs one scenario against one subject and prints its result as one
/// line, `@@stress result JSON`. The scenario runs on a thread of its own while the main
/// thread drives the main run loop, so the main-thread scheduler works here too.
enum StressWorker {
    static let prefix = "@@stress result "

    static func run(_ plan: RunPlan) {
        guard let scenario = StressCatalogue.scenario(plan.scenario), let subject = KnownSubjects.named(plan.subject) else { return }
        let duration = Duration.nanoseconds(Int64(plan.durationSeconds * 1e9))
        let context = StressContext(subject: subject, threads: plan.threads, duration: duration, seed: plan.seed)
        let result = Box<StressRun?>(nil)
        Thread {
            let start = ContinuousClock.now
            var failure: StressFailure?
            do throws(StressFailure) { try scenario.run(context) } catch { failure = error }
            var run = StressRun(scenario: scenario, context: context, duration: ContinuousClock.now - start, failure: failure)
            if run.status != .passed { run.reproduce = plan.reproduce }
            result.value = run
        }.start()
        while result.value == nil {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
        guard let json = try? JSONEncoder().encode(result.value!) else { return }
        FileHandle.standardOutput.write(Data((prefix + String(decoding: json, as: UTF8.self) + "\n").utf8))
    }
}
