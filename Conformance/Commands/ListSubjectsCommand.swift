import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerReporting

extension ConformanceCommand {
    struct ListSubjects: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the subjects this tool knows, with their kind, origin and capabilities.")

        func run() {
            for subject in Toolkit.current.subjects {
                print(
                    "\(subject.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(subject.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(subject.origin.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(subject.capabilities)"
                )
            }
        }
    }
}
