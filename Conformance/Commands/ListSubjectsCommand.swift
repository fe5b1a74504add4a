import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct ListSubjects: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List the subjects this tool knows, with their kind, origin, capabilities and declared differences.")

        func run() {
            for subject in Toolkit.current.subjects {
                let declared = subject.declared.differences.map(\.code)
                print(
                    """
                    \(subject.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \
                    \(subject.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \
                    \(subject.origin.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \
                    \(subject.capabilities)
                    """
                        + (declared.isEmpty ? "" : "; declares \(declared.joined(separator: ", "))")
                )
            }
        }
    }
}
