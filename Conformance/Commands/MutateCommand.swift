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
                "The package's product that runs the rules: this tool, built from the mutated copy (default: this executable's name)."
        )
        var product: String?

        @Option(
            name: .customLong("files"),
            help: "Only files matching this glob, relative to the target's folder (repeatable).")
        var files: [String] = []

        @Option(
            name: .customLong("subject"),
            help:
                "Subjects or groups whose rules judge the mutants (repeatable or comma-separated; default: the tool's default subjects)."
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
                "The JSON file of mutants declared equivalent (default: mutation-equivalents.json in the package, if present)."
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
                "Seconds a rule may run with a mutant on beyond four times its unmutated time before the mutant counts as hung."
        )
        var mutantTimeout: Double = 10

        @Option(help: "Exit 1 when the mutation score (percent) is below this.")
        var minimumScore: Double?

        @Flag(help: "Run every rule that reaches each mutant, not only up to the first kill: the whole kill matrix.")
        var allRules = false

        @Flag(
            help:
                "Do not run the mutants declared equivalent again (quicker; a declaration a stronger rule now refutes goes unnoticed until a run without this flag)."
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

/// One `conformance mutate`: generate and build the schemata, run the baseline, run every
/// mutant, write the report.
private struct MutationRun {
    let command: ConformanceCommand.Mutate

    func run() throws {
        let started = ContinuousClock.now
        let package = URL(fileURLWithPath: command.package, isDirectory: true).standardizedFileURL
        let scratch =
            command.scratch.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? package.appending(path: ".build-mutate", directoryHint: .isDirectory)
        let folder = URL(fileURLWithPath: command.reportDir, isDirectory: true)
        try ReportFiles.prepare(folder)
        let equivalents = try loadEquivalents(package: package)
        let workspace = MutationWorkspace(
            package: package, scratch: scratch, target: command.target,
            targetPath: try MutationWorkspace.targetPath(of: command.target, in: package, scratch: scratch),
            configuration: command.configuration,
            product: command.product ?? URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let mutator = try mutatorExecutable()
        let changedLines = try command.since.map { try changedLinesFile(since: $0, workspace: workspace) }
        let manifestText = try copiedManifest(workspace, mutator: mutator)

        // Generate, and drop what the compiler refuses, until the target builds.
        var excluded: Set<Int> = []
        var manifest = try generate(
            workspace, mutator: mutator, manifest: manifestText, excluded: excluded, changedLines: changedLines)
        let everyMutant = manifest.mutants
        guard !everyMutant.isEmpty else {
            printError("conformance mutate: no mutants (no file matched, or nothing changed since the ref)")
            return
        }
        printError(
            "conformance mutate: \(manifest.mutants.count) mutants in \(manifest.files.count) files of \(workspace.targetPath)"
        )
        for round in 1...12 {
            let errors = try workspace.build(targetOnly: true)
            if errors.isEmpty { break }
            guard let culprits = workspace.culprits(of: errors, in: manifest), !culprits.isEmpty, round < 12 else {
                throw MutationWorkspace.Failure(
                    description: "the mutated target does not compile, and no mutant explains it:\n"
                        + errors.prefix(10).map { "\($0.path):\($0.line):\($0.column): \($0.message)" }.joined(
                            separator: "\n"))
            }
            excluded.formUnion(culprits)
            printError("conformance mutate: \(culprits.count) mutant(s) do not compile; rebuilding without them")
            manifest = try generate(
                workspace, mutator: mutator, manifest: manifestText, excluded: excluded, changedLines: changedLines)
        }
        printError("conformance mutate: building \(workspace.product) from the mutated copy (\(command.configuration))")
        let errors = try workspace.build(targetOnly: false)
        guard errors.isEmpty else {
            throw MutationWorkspace.Failure(
                description: "the mutated copy's \(workspace.product) does not build:\n"
                    + errors.prefix(10).map { "\($0.path):\($0.line): \($0.message)" }.joined(separator: "\n"))
        }
        let built = ContinuousClock.now

        let trials = MutationTrials(
            tool: workspace.tool, scratch: scratch, subjects: try Toolkit.current.select(command.subjects),
            rules: command.selection.selected, timing: command.timingOptions.timing(cappingMustHappenAt: .seconds(3)),
            mutantTimeout: .nanoseconds(Int64(command.mutantTimeout * 1e9)))
        let (baseline, reach) = try trials.baseline(maximumID: everyMutant.map(\.id).max() ?? 0)
        let baselined = ContinuousClock.now
        var reachedBy: [Int: [MutationTrials.Pair]] = [:]
        for (pair, ids) in reach.pairs where MutationTrials.killable.contains(baseline[pair]?.status ?? .error) {
            for id in ids { reachedBy[id, default: []].append(pair) }
        }
        let durations = baseline.mapValues(\.durationSeconds)
        let everyPair = MutationTrials.everyPair(baseline)
        let home = MutationTrials.homeSubjects(of: manifest.mutants, reachedBy: reachedBy)

        var results: [MutationReport.MutantResult] = []
        for (index, mutant) in manifest.mutants.enumerated() {
            // The subjects that exercise the mutant's file come first, each pair cheapest first.
            let homeSubjects = home[mutant.file] ?? []
            let pairs = (mutant.runsOnce == true ? everyPair : reachedBy[mutant.id] ?? []).sorted {
                (homeSubjects.contains($0.subject) ? 0 : 1, durations[$0] ?? 0, $0.subject, $0.rule.rawValue)
                    < (homeSubjects.contains($1.subject) ? 0 : 1, durations[$1] ?? 0, $1.subject, $1.rule.rawValue)
            }
            let began = ContinuousClock.now
            var result = mutant.result(.uncovered)
            let declared = equivalents.reason(for: mutant.result(.uncovered).key)
            if declared != nil && command.trustEquivalents {
                // Reviewed and declared: not run again (`--trust-equivalents`).
                result.trials = []
            } else if !pairs.isEmpty {
                let spread = mutant.runsOnce == true || reach.beforeRulesOnly.contains(mutant.id)
                result.trials = trials.trials(
                    of: mutant.id, pairs: pairs, durations: durations, allRules: command.allRules, spread: spread)
                result.killedBy = result.trials.first { $0.kill != nil }
                result.kill = result.killedBy?.kill
                let launchFailed = result.trials.contains { $0.status == .error && $0.kill == nil }
                result.verdict = result.killedBy != nil ? .killed : launchFailed ? .error : .survived
            }
            result.declaredEquivalent = equivalents.reason(for: result.key)
            if result.declaredEquivalent != nil, result.verdict == .survived || result.verdict == .uncovered {
                result.verdict = .equivalent
            }
            result.seconds = (ContinuousClock.now - began).timeInterval
            results.append(result)
            printError(
                "mutant \(index + 1)/\(manifest.mutants.count) #\(mutant.id) \(result.verdict.rawValue)"
                    + (result.killedBy.map { " by \($0.rule)@\($0.subject) (\(result.kill!.rawValue))" } ?? "")
                    + " — \(mutant.file):\(mutant.line) \(mutant.operator)")
        }

        let report = MutationReport(
            package: package.path, target: command.target, product: workspace.product,
            configuration: command.configuration, subjects: trials.subjects.map(\.name),
            operators: splitList(command.operators).isEmpty ? MutateOperators.all : splitList(command.operators),
            since: command.since,
            seconds: .init(
                build: (built - started).timeInterval, baseline: (baselined - built).timeInterval,
                mutants: (ContinuousClock.now - baselined).timeInterval),
            baseline: baseline.map { pair, result in
                MutationReport.BaselinePair(
                    subject: pair.subject, rule: pair.rule.rawValue, status: result.status,
                    durationSeconds: result.durationSeconds, reaches: reach.pairs[pair]?.count ?? 0)
            }.sorted { ($0.subject, $0.rule) < ($1.subject, $1.rule) },
            notCompiled: everyMutant.filter { excluded.contains($0.id) }.map { $0.result(.error) },
            mutants: results)
        let url = folder.appending(path: "mutation.json")
        try report.jsonData().write(to: url, options: .atomic)
        print(report.table())
        print("report: \(url.path) (\(String(format: "%.0f", (ContinuousClock.now - started).timeInterval)) s)")
        if let minimum = command.minimumScore, report.total.score < minimum {
            printError(
                String(
                    format: "conformance mutate: score %.1f %% is below --minimum-score %.1f", report.total.score,
                    minimum))
            throw ExitCode.failure
        }
    }

    private func loadEquivalents(package: URL) throws -> EquivalentMutants {
        let path = command.equivalents ?? package.appending(path: "mutation-equivalents.json").path
        guard FileManager.default.fileExists(atPath: path) else { return EquivalentMutants() }
        return try ReportFiles.read(EquivalentMutants.self, at: path, what: "the equivalent mutants")
    }

    /// The mutator: the one given, or this package's, built (debug) on first use.
    private func mutatorExecutable() throws -> String {
        if let given = command.mutator {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw ValidationError("--mutator '\(given)' is not an executable")
            }
            return given
        }
        // The harness's own checkout: this file is Conformance/Commands/MutateCommand.swift in it.
        let mutatorPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Mutator", directoryHint: .isDirectory)
        guard FileManager.default.fileExists(atPath: mutatorPackage.appending(path: "Package.swift").path) else {
            throw MutationWorkspace.Failure(
                description:
                    "the mutator's package is not at \(mutatorPackage.path) (a relocated build?): pass --mutator")
        }
        printError("conformance mutate: building scheduler-mutator (swift-syntax; the first time takes minutes)")
        _ = try Shell.run(
            "swift", ["build", "--package-path", mutatorPackage.path, "--product", "scheduler-mutator"],
            what: "build scheduler-mutator")
        return mutatorPackage.appending(path: ".build/debug/scheduler-mutator").path
    }

    /// Writes the lines changed since `ref` in the target's folder, as the mutator reads them.
    private func changedLinesFile(since ref: String, workspace: MutationWorkspace) throws -> String {
        let folder = workspace.package.appending(path: workspace.targetPath, directoryHint: .isDirectory)
        let diff = try Shell.run(
            "git", ["-C", folder.path, "diff", "-U0", "--relative", "--no-color", ref, "--", "."],
            what: "list the changes since '\(ref)'")
        let lines = ChangedLines.parse(diff)
        let url = workspace.scratch.appending(path: "changed-lines.json")
        try JSONEncoder().encode(lines.mapValues { $0.sorted() }).write(to: url, options: .atomic)
        return url.path
    }

    /// The package's Package.swift with its `.package(path:)` dependencies made absolute,
    /// so the copy, built elsewhere, finds them.
    private func copiedManifest(_ workspace: MutationWorkspace, mutator: String) throws -> String {
        let url = workspace.scratch.appending(path: "Package.swift")
        try Data(contentsOf: workspace.package.appending(path: "Package.swift")).write(to: url, options: .atomic)
        _ = try Shell.run(
            mutator, ["absolutize-dependencies", "--manifest", url.path, "--origin", workspace.package.path],
            what: "copy Package.swift")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Runs the mutator into the scratch schemata folder and overlays its files on the copy.
    private func generate(
        _ workspace: MutationWorkspace, mutator: String, manifest: String, excluded: Set<Int>, changedLines: String?
    ) throws -> MutantManifest {
        try? FileManager.default.removeItem(at: workspace.schemata)
        var arguments = [
            "schemata", "--target-dir", workspace.package.appending(path: workspace.targetPath).path, "--out",
            workspace.schemata.path,
        ]
        arguments += command.files.flatMap { ["--file", $0] }
        arguments += splitList(command.operators).flatMap { ["--operator", $0] }
        if let changedLines { arguments += ["--changed-lines", changedLines] }
        if !excluded.isEmpty { arguments += ["--exclude", excluded.sorted().map(String.init).joined(separator: ",")] }
        if command.configuration == "debug" { arguments += ["--define", "DEBUG"] }
        _ = try Shell.run(mutator, arguments, what: "generate the schemata")
        let mutants = try ReportFiles.read(
            MutantManifest.self, at: workspace.schemata.appending(path: "mutants.json").path, what: "the mutants")
        var overlay: [String: String] = [:]
        for file in mutants.files + [mutants.switchFile] {
            overlay[file] = try String(contentsOf: workspace.schemata.appending(path: file), encoding: .utf8)
        }
        try workspace.synchronise(manifest: manifest, overlay: overlay)
        return mutants
    }
}

/// The new-side lines of a `git diff -U0`, per file.
enum ChangedLines {
    /// `+++ b/File.swift` names the file; each `@@ -a,b +c,d @@` adds lines c ..< c+d.
    static func parse(_ diff: String) -> [String: Set<Int>] {
        var lines: [String: Set<Int>] = [:]
        var file: String?
        for line in diff.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("+++ ") {
                let name = line.dropFirst(4)
                file = name == "/dev/null" ? nil : String(name.hasPrefix("b/") ? name.dropFirst(2) : name)
            } else if line.hasPrefix("@@"), let file {
                let fields = line.split(separator: " ")
                guard fields.count >= 3, fields[2].hasPrefix("+") else { continue }
                let range = fields[2].dropFirst().split(separator: ",")
                guard let start = Int(range[0]) else { continue }
                let count = range.count > 1 ? Int(range[1]) ?? 1 : 1
                lines[file, default: []].formUnion(start..<(start + count))
            }
        }
        return lines
    }
}
