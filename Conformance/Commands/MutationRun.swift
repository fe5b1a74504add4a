import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

/// One `conformance mutate`: generate and build the schemata, run the baseline, run every
/// mutant, write the report.
struct MutationRun {
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
            """
            conformance mutate: \(manifest.mutants.count) mutants in \(manifest.files.count) files of \
            \(workspace.targetPath)
            """
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
        let reachedBy = reach.pairs.reduce(into: [Int: [MutationTrials.Pair]]()) { reachedBy, entry in
            guard MutationTrials.killable.contains(baseline[entry.key]?.status ?? .error) else { return }
            for id in entry.value { reachedBy[id, default: []].append(entry.key) }
        }
        let durations = baseline.mapValues(\.durationSeconds)
        let everyPair = MutationTrials.everyPair(baseline)
        let home = MutationTrials.homeSubjects(of: manifest.mutants, reachedBy: reachedBy)

        // A few mutants at once: a mutant's trials mostly wait on its worker processes. A batch
        // with a rule that races the cores runs alone (``CoreGate``), as it does in `mutants`.
        let (mutants, command) = (manifest.mutants, command)
        let results = Parallel.map(mutants.count, width: command.jobs) { index in
            let mutant = mutants[index]
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
            printError(
                "mutant \(index + 1)/\(mutants.count) #\(mutant.id) \(result.verdict.rawValue)"
                    + (result.killedBy.map { " by \($0.rule)@\($0.subject) (\(result.kill!.rawValue))" } ?? "")
                    + " — \(mutant.file):\(mutant.line) \(mutant.operator)")
            return result
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
