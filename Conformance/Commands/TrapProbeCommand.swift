import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    /// Runs code that a correct subject makes trap, for a rule in the parent process.
    struct TrapProbe: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "trap-probe", shouldDisplay: false)

        @Option var subject: String
        @Option var probe: String

        func run() throws {
            TrapProbeCommand.run(subject: subject, probe: probe)
        }
    }
}
