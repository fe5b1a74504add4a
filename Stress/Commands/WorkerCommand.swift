import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    /// The child side of isolation; not for people.
    struct Worker: ParsableCommand {
        static let configuration = CommandConfiguration(shouldDisplay: false)

        @Option var subject: String
        @Option var scenario: String
        @Option var seed: UInt64
        @Option var duration: Double
        @Option var threads: Int

        func run() throws {
            guard let subject = Toolkit.current.subject(named: subject) else {
                throw ValidationError("unknown subject '\(subject)'")
            }
            guard let scenario = StressCatalogue.scenario(ScenarioID(rawValue: scenario)) else {
                throw ValidationError("unknown scenario '\(scenario)'")
            }
            let plan = RunPlan(
                scenario: scenario.id, subject: subject.name, threads: threads, seed: seed, durationSeconds: duration)
            StressWorker.run(plan, scenario: scenario, subject: subject)
        }
    }
}
