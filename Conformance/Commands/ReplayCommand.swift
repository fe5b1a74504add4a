import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    /// Reruns the scenario a model-checked rule's failure printed, from its seed.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rerun the scenario of a model-checked (LIN) rule's failure from its seed.",
            discussion: """
                The scenario is generated again from the seed and run again and again, each run with \
                its own jitter, until a run is refused (printing the smallest scenario still refused) \
                or the budget is spent. Exit status: 0 when no run was refused, 1 when one was, 64 for \
                bad usage.
                """)

        @Option(help: "The subject the failure was seen on.") var subject: String
        @Option(help: "The model-checked rule, e.g. LIN-1.") var rule: String
        @Option(help: "The seed the failure printed.") var seed: UInt64
        @Option(help: "Seconds to keep rerunning the scenario.") var budget: Double = 5
        @OptionGroup var timingOptions: TimingOptions

        func validate() throws {
            guard Toolkit.current.subject(named: subject) != nil else {
                throw ValidationError(
                    "unknown subject '\(subject)'; the list-subjects subcommand lists them")
            }
            guard let rule = RuleCatalogue.rule(rule), rule.category == .modelChecked else {
                throw ValidationError("'\(rule)' is not a model-checked rule; use one of \(Self.ruleIDs)")
            }
            guard budget.isFinite, budget > 0, budget <= 3600 else {
                throw ValidationError("--budget must be a number of seconds above 0 and at most 3600")
            }
        }

        static var ruleIDs: String {
            RuleCatalogue.all.filter { $0.category == .modelChecked }.map(\.id.rawValue).joined(separator: ", ")
        }

        func run() throws {
            let subject = Toolkit.current.subject(named: subject)!
            let rule = RuleCatalogue.rule(rule)!
            let result = ConformanceRunner.run(
                subject, rules: [rule], timing: timingOptions.timing(),
                exploration: Exploration(budget: .milliseconds(Int64(budget * 1000)), seed: seed, replay: true))[0]
            print("\(subject.name) \(rule.id) seed \(seed): \(result.status.rawValue)")
            if let message = result.message { print(message) }
            if result.status != .passed { throw ExitCode(1) }
        }
    }
}
