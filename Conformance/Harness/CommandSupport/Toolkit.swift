import ArgumentParser
import Foundation
import SchedulerVocabulary
import Schedulers

/// What a tool built on the harness works with: its subjects, its mutants, the deviations
/// it knows, and the gate that decides its exit status. ``ConformanceTool`` and
/// ``StressTool`` are handed one in `main` and pass the same one to their worker processes
/// (which are the same executable), so a subject is found by name on both sides.
public struct Toolkit: Sendable {
    /// Every subject the tool knows, mutants included.
    public var subjects: [ConformanceSubject]
    /// Mutants and the rules written to catch them, for `conformance mutants`.
    public var mutants: [Mutant]
    /// Why subjects fail what they fail; printed beside failures and, for the gate, excused.
    public var explanations: Explanations
    /// Which failures fail the run.
    public var gate: Gate

    /// A toolkit of `subjects` and `mutants`, whose subjects are added to the known ones.
    /// Without a `gate`, required failures of every non-mutant subject fail the run unless
    /// `explanations` explains them.
    public init(
        subjects: [ConformanceSubject], mutants: [Mutant] = [], explanations: Explanations = [:], gate: Gate? = nil
    ) {
        var known = subjects
        for mutant in mutants where !known.contains(where: { $0.name == mutant.subject.name }) {
            known.append(mutant.subject)
        }
        self.subjects = known
        self.namingProblem = Self.namingProblem(subjects.map(\.name))
        self.mutants = mutants
        self.explanations = explanations
        self.gate = gate ?? Gate(excused: explanations)
    }

    /// Why the subjects' names cannot select them, if they cannot: two share a name, or one
    /// has a group's name (the group would hide it). `main` refuses to run with it (exit 64).
    package let namingProblem: String?

    private static func namingProblem(_ names: [String]) -> String? {
        var seen: Set<String> = []
        for name in names {
            if name.isEmpty { return "a subject has an empty name" }
            if !seen.insert(name).inserted { return "two subjects are named '\(name)'; each needs a name of its own" }
            if ConformanceSubject.Origin.allCases.map(\.rawValue).contains(name) || name == "all" {
                return "a subject is named '\(name)', which names a group of subjects; choose another name"
            }
        }
        return nil
    }

    /// The subject named `name`, if any.
    public func subject(named name: String) -> ConformanceSubject? {
        subjects.first { $0.name == name }
    }

    /// Names that stand for several subjects: each origin present (`reference`,
    /// `third-party`, `mutant`), and `all`.
    public var groups: [(name: String, subjects: [ConformanceSubject])] {
        var groups: [(name: String, subjects: [ConformanceSubject])] = []
        for origin in [ConformanceSubject.Origin.reference, .thirdParty, .mutant] {
            let members = subjects.filter { $0.origin == origin }
            if !members.isEmpty { groups.append((origin.rawValue, members)) }
        }
        return groups + [("all", subjects)]
    }

    /// What runs when no subject is named: every subject that is not a mutant.
    public var defaultSubjects: [ConformanceSubject] {
        subjects.filter { $0.origin != .mutant }
    }

    /// The subjects that `names` (subject or group names, comma-separated or not) stand for,
    /// in order, each once; the default subjects when `names` is empty.
    /// - Throws: `ValidationError` naming the first unknown name.
    package func select(_ names: [String]) throws -> [ConformanceSubject] {
        let names = try nonEmptyList(names, option: "--subject")
        if names.isEmpty { return defaultSubjects }
        var selected: [ConformanceSubject] = []
        for name in names {
            guard let members = groups.first(where: { $0.name == name })?.subjects ?? subject(named: name).map({ [$0] })
            else {
                throw ValidationError("unknown subject '\(name)'; `list-subjects` lists them")
            }
            selected += members.filter { member in !selected.contains { $0.name == member.name } }
        }
        return selected
    }

    /// The toolkit `main` was given; the commands read it.
    package static var current: Toolkit {
        guard let toolkit = installed.withLock({ $0 }) else {
            fatalError("a harness command ran without a toolkit: call ConformanceTool.main or StressTool.main")
        }
        return toolkit
    }

    /// Runs `command` on this process's command line with this toolkit, and exits with its
    /// status. Does not return.
    package func main<Command: ParsableCommand>(_ command: Command.Type) -> Never {
        if let namingProblem {
            printError("error: \(namingProblem)")
            exit(64)
        }
        installed.withLock { $0 = self }
        command.main()
        exit(0)
    }
}

/// Set once by `main`, before any command runs; read by the commands ArgumentParser makes.
private let installed = Lock<Toolkit?>(nil)

/// Values from repeatable, comma-separated options, trimmed, without empty ones.
package func splitList(_ values: [String]) -> [String] {
    values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// The file name this process was started as, for usage and help: a tool built on the
/// harness is called by its own name (`worker-thread-conformance run …`), not the name of
/// the harness's own executable. `fallback` when there is none.
package func executableName(or fallback: String) -> String {
    let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
    return name.isEmpty ? fallback : name
}

/// ``splitList(_:)`` of an option's values, refusing an option given with nothing in it:
/// `--subject ''` is a mistake (a variable that expanded to nothing), not a request for the
/// default set, which leaving the option out asks for.
package func nonEmptyList(_ values: [String], option: String) throws -> [String] {
    let names = splitList(values)
    if !values.isEmpty, names.isEmpty {
        throw ValidationError("\(option) is empty: name at least one, or leave the option out for the default")
    }
    return names
}

/// Writes to standard error, for progress that must not mix with tables on standard output.
package func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
