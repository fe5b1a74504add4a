import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct ListRules: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rule catalogue.")

        @Flag(help: "Print the catalogue as a Markdown document (Conformance/RULES.md).")
        var markdown = false

        func run() {
            print(markdown ? RuleDocument.markdown() : RuleDocument.list())
        }
    }
}
