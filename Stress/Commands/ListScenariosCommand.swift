import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    struct ListScenarios: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-scenarios", abstract: "List the stress scenarios and what each needs.")

        func run() {
            for scenario in StressCatalogue.all {
                print("\(scenario.id.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0)) \(scenario.summary)")
            }
        }
    }
}
