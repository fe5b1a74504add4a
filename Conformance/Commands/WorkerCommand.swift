import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    /// The child side of isolation; not for people.
    struct Worker: ParsableCommand {
        static let configuration = CommandConfiguration(shouldDisplay: false)

        @Option var subject: String
        @Option var timingJson: String
        @Option var explorationJson: String?
        @OptionGroup var selection: RuleSelection
        /// Ends the process after the first rule that does not pass or skip (`mutate` wants
        /// one kill per mutant; the rules after it would only wait out the same fault).
        @Flag var stopAtFirstKill = false

        func run() throws {
            guard let subject = Toolkit.current.subject(named: subject) else {
                throw ValidationError("unknown subject '\(subject)'")
            }
            let timing = try JSONDecoder().decode(Timing.self, from: Data(timingJson.utf8))
            let exploration = try explorationJson.map {
                try JSONDecoder().decode(Exploration.self, from: Data($0.utf8))
            }
            RuleWorker.run(
                subject: subject, rules: selection.selected, timing: timing, exploration: exploration ?? .standard,
                stopAtFirstKill: stopAtFirstKill)
        }
    }
}
