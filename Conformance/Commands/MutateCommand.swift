import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct Mutate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Mutation analysis: break a target's code in small ways and report which breakages no rule catches.",
            discussion: """
                Parses the target's sources with SwiftSyntax and compiles every mutant into one copy of the \
                package (mutant schemata: each mutation guarded by a switch read from SCHEDULER_MUTANT), so \
                one build serves them all. A run with every mutant off records which rules reach which \
                mutant's code; then each mutant runs only those rules, cheapest first, in isolated workers. \
                A failure kills it, so does a hang (timeout) or a crash. The package is only read: the copy, \
                its build and the maps live in --scratch. Exit status: 0, or 1 when the score is below \
                --minimum-score or the run failed; 64 for bad usage.
                """
        )

        @Option(help: "The package whose target is mutated (default: the current folder).")
        var package = "."

        @Option(help: "The target to mutate, e.g. Schedulers.")
        var target: String

        @Option(
            help:
                """
                The package's product that runs the rules: this tool, built from the mutated copy (default: this \
                executable's name).
                """
        )
        var product: String?

        @Option(
            name: .customLong("files"),
            help: "Only files matching this glob, relative to the target's folder (repeatable).")
        var files: [String] = []

        @Option(
            name: .customLong("subject"),
            help:
                """
                Subjects or groups whose rules judge the mutants (repeatable or comma-separated; default: the tool's \
                default subjects).
                """
        )
        var subjects: [String] = []

        @Option(
            name: .customLong("operator"),
            help:
                "Only these operators (repeatable or comma-separated): \(MutateOperators.all.joined(separator: ", ")).")
        var operators: [String] = []

        @Option(
            help: ArgumentHelp(
                "Mutate only lines changed since this git ref (for pull requests).", valueName: "git-ref"))
        var since: String?

        @Option(
            help:
                """
                The JSON file of mutants declared equivalent (default: mutation-equivalents.json in the package, if \
                present).
                """
        )
        var equivalents: String?

        @Option(help: "Folder for mutation.json.")
        var reportDir = "Reports/mutation"

        @Option(
            help: "The scratch build's configuration: release (default, as the tool ships) or debug (builds faster).")
        var configuration = "release"

        @Option(
            help: "The package's scratch folder: its copy, build and coverage map (default: <package>/.build-mutate).")
        var scratch: String?

        @Option(help: "A built scheduler-mutator to use instead of building this package's Conformance/Mutator.")
        var mutator: String?

        @Option(
            help:
                """
                Seconds a rule may run with a mutant on beyond four times its unmutated time before the mutant counts \
                as hung.
                """
        )
        var mutantTimeout: Double = 10

        @Option(
            help:
                """
                Mutants judged at once (a batch with a rule that races the cores runs alone whatever this says).
                """
        )
        var jobs = 3

        @Option(help: "Exit 1 when the mutation score (percent) is below this.")
        var minimumScore: Double?

        @Flag(help: "Run every rule that reaches each mutant, not only up to the first kill: the whole kill matrix.")
        var allRules = false

        @Flag(
            help:
                """
                Do not run the mutants declared equivalent again (quicker; a declaration a stronger rule now refutes \
                goes unnoticed until a run without this flag).
                """
        )
        var trustEquivalents = false

        @OptionGroup var selection: RuleSelection
        @OptionGroup var timingOptions: TimingOptions

        func validate() throws {
            _ = try Toolkit.current.select(subjects)
            for name in splitList(operators) where !MutateOperators.all.contains(name) {
                throw ValidationError(
                    "unknown operator '\(name)'; use one of \(MutateOperators.all.joined(separator: ", "))")
            }
            guard ["release", "debug"].contains(configuration) else {
                throw ValidationError("--configuration must be release or debug, got '\(configuration)'")
            }
            if !(mutantTimeout.isFinite && mutantTimeout > 0) {
                throw ValidationError("--mutant-timeout must be a positive number of seconds, got \(mutantTimeout)")
            }
            guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64, got \(jobs)") }
            if let minimumScore, !(0...100).contains(minimumScore) {
                throw ValidationError("--minimum-score must be a percentage from 0 to 100, got \(minimumScore)")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: package + "/Package.swift", isDirectory: &isDirectory),
                !isDirectory.boolValue
            else {
                throw ValidationError("--package '\(package)' is not a Swift package (no Package.swift there)")
            }
            if let equivalents, !FileManager.default.fileExists(atPath: equivalents) {
                throw ValidationError("--equivalents '\(equivalents)' does not exist")
            }
        }

        func run() throws {
            do {
                try MutationRun(command: self).run()
            } catch let failure as MutationWorkspace.Failure {
                printError("conformance mutate: \(failure.description)")
                throw ExitCode.failure
            }
        }
    }
}

/// The operators the mutator knows (`scheduler-mutator operators` lists them too).
enum MutateOperators {
    static let all = [
        "relational-boundary", "negate-condition", "logical-connector", "remove-call", "swap-statements",
        "weaken-ordering", "unguard-lock", "early-return", "off-by-one",
    ]
}
