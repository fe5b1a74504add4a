import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct ListRules: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rule catalogue.")

        @Flag(help: "Print the catalogue as a Markdown document (the documentation's rule reference).")
        var markdown = false

        func run() {
            print(markdown ? RuleDocument.markdown() : RuleDocument.list())
        }
    }
}
