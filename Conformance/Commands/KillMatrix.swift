import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import SchedulerConformance
import SchedulerProbes

extension ConformanceCommand {
    struct MutantsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mutants",
            abstract:
                """
                Check that the rules catch every mutant: each one's rule --runs times, or (--all-rules) the whole \
                catalogue once.
                """,
            discussion:
                """
                Exit status: 0 when every run caught its mutant, 1 when a mutant escaped in some run, 64 for bad usage.
                """
        )

        @Option(help: "How many times to run each mutant's rule (this project's bar is 10).")
        var runs = 10

        @Flag(
            help: "Run the whole catalogue once per mutant instead, and print which rules catch it (the kill matrix).")
        var allRules = false

        @OptionGroup var selection: RuleSelection
        @OptionGroup var timingOptions: TimingOptions

        @Option(
            help: ArgumentHelp(
                "Only these mutants, by name with or without `mutant-` (repeatable or comma-separated).",
                valueName: "name"),
            transform: { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } })
        var mutant: [[String]] = []

        @Option(help: "Folder for conformance.json and conformance.junit.xml.")
        var reportDir = "Reports/mutants"

        @OptionGroup var execution: ExecutionOptions

        func validate() throws {
            guard (1...1_000).contains(runs) else {
                throw ValidationError("--runs must be between 1 and 1000, got \(runs)")
            }
            if allRules && runs != 10 { throw ValidationError("choose one of --runs and --all-rules") }
        }

        func run() throws {
            var mutants = Toolkit.current.mutants
            guard !mutants.isEmpty else { throw ValidationError("this tool was given no mutants") }
            let names = mutant.flatMap { $0 }
            if !names.isEmpty {
                let known = Set(mutants.map(\.subject.name))
                if let unknown = names.first(where: { !known.contains($0) && !known.contains("mutant-" + $0) }) {
                    throw ValidationError(
                        """
                        no mutant named '\(unknown)' in this build (optimised builds also bundle the LIN rules' mutants)
                        """
                    )
                }
                let wanted = Set(names.flatMap { [$0, "mutant-" + $0] })
                mutants = mutants.filter { wanted.contains($0.subject.name) }
            }
            let rules = selection.selected
            let timing = timingOptions.timing(cappingMustHappenAt: KillCount.mustHappen)
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            // Mutants never gate a report; what gates here is whether each was caught.
            if !allRules {
                let ids = Set(rules.map(\.id))
                let kills = KillCount.run(
                    mutants.filter { ids.contains($0.killer) }, runs: runs, timing: timing,
                    inProcess: execution.inProcess)
                try ReportFiles.write(
                    ConformanceReport(rules: rules, subjects: kills.map(\.report), timing: timing), to: folder)
                print(KillCount.render(kills, runs: runs))
                if kills.contains(where: { $0.kills < runs }) { throw ExitCode.failure }
                return
            }
            let reports = mutants.map { mutant in
                let results = IsolatedRules.run(
                    subject: mutant.subject, rules: rules, timing: timing, inProcess: execution.inProcess,
                    memoryCap: execution.memoryCap)
                printError(
                    """
                    \(mutant.subject.name): \
                    \(results.filter { $0.status.isFailure }.map(\.rule.rawValue).joined(separator: " "))
                    """
                )
                return ConformanceReport.SubjectReport(mutant.subject, results: results)
            }
            let report = ConformanceReport(rules: rules, subjects: reports, timing: timing)
            try ReportFiles.write(report, to: folder)
            if !execution.quiet { print(report.table()) }
            print(KillMatrix.render(report, mutants: mutants))
            if !KillMatrix.survivors(report).isEmpty { throw ExitCode.failure }
        }
    }
}

/// The suite's self-test, as people read it: which rules killed which mutant.
enum KillMatrix {
    static func survivors(_ report: ConformanceReport) -> [String] {
        report.subjects.filter { subject in
            !subject.results.contains { $0.status.isFailure }
        }.map(\.name)
    }

    static func render(_ report: ConformanceReport, mutants: [Mutant]) -> String {
        let faults = Dictionary(uniqueKeysWithValues: mutants.map { ($0.subject.name, $0) })
        var lines = ["", "kill matrix (mutant: fault -> rules that caught it)"]
        for subject in report.subjects {
            let killers = subject.results.filter { $0.status.isFailure }.map(\.rule.rawValue)
            let mutant = faults[subject.name]
            let verdict = killers.isEmpty ? "SURVIVED" : killers.joined(separator: " ")
            let intended =
                mutant.map { killers.contains($0.killer.rawValue) ? "" : "  (intended killer \($0.killer) missed)" }
                ?? ""
            lines.append("  \(subject.name) [\(mutant?.fault ?? "?")]: \(verdict)\(intended)")
        }
        let survivors = survivors(report)
        lines.append(survivors.isEmpty ? "every mutant killed" : "SURVIVORS: \(survivors.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }

    /// The first run that did not catch the mutant, as its status and message.
    static func escapes(_ results: [RuleResult]) -> String {
        let escape = results.first { !($0.status == .failed || $0.status == .timeout) }
        return escape.map { "\($0.status.rawValue) \($0.message ?? "")" } ?? ""
    }
}

/// The suite's bar for each mutant: the rule written for it fails in every run.
struct KillCount: Sendable {
    let mutant: Mutant
    /// Runs in which the rule failed (or timed out) on the mutant.
    let kills: Int
    /// Every run's result, for the report.
    let report: ConformanceReport.SubjectReport

    /// Runs each mutant's rule `runs` times, each run in a fresh worker process (unless
    /// `inProcess`), eight mutants at a time: most of a mutant's time is spent waiting for
    /// something that never happens, and every rule so run holds its bar with every core busy.
    static func run(_ mutants: [Mutant], runs: Int, timing: Timing, inProcess: Bool) -> [KillCount] {
        // Mutants whose rule races threads on the cores are measured alone, after the rest:
        // several at once would starve each other's races and come out inconclusive.
        let racing = mutants.map { RuleCatalogue.rule($0.killer).needsIdleCores }
        let alone = mutants.indices.filter { racing[$0] }
        let together = mutants.indices.filter { !racing[$0] }
        var counts = Dictionary(
            uniqueKeysWithValues: zip(
                together, inParallel(together.map { mutants[$0] }, runs: runs, timing: timing, inProcess: inProcess)))
        for index in alone {
            let count = measure(mutants[index], runs: runs, timing: timing, inProcess: inProcess)
            printError("\(count.mutant.subject.name): \(count.kills)/\(runs) by \(count.mutant.killer)")
            counts[index] = count
        }
        return mutants.indices.map { counts[$0]! }
    }

    /// How many mutants whose rules do not race the cores are measured at once.
    static let atOnce = 8

    /// The mutants' bound on what must happen. One mutant in eight is caught by an event
    /// that never comes, and each of its runs waits the whole bound, while what a
    /// rule waits for on the correct part of a subject takes micro- to milliseconds, a few
    /// hundred with every core busy: a shorter bound fails a slowed step early and never
    /// passes one.
    static let mustHappen: Duration = .seconds(1)

    /// Measures `mutants` ``atOnce`` at a time.
    private static func inParallel(_ mutants: [Mutant], runs: Int, timing: Timing, inProcess: Bool) -> [KillCount] {
        Parallel.map(mutants.count, width: atOnce) { index in
            let count = measure(mutants[index], runs: runs, timing: timing, inProcess: inProcess)
            printError("\(count.mutant.subject.name): \(count.kills)/\(runs) by \(count.mutant.killer)")
            return count
        }
    }

    private static func measure(_ mutant: Mutant, runs: Int, timing: Timing, inProcess: Bool) -> KillCount {
        let rule = RuleCatalogue.rule(mutant.killer)
        let results = (0..<runs).map { _ in
            IsolatedRules.run(subject: mutant.subject, rules: [rule], timing: timing, inProcess: inProcess)[0]
        }
        let kills = results.filter { $0.status == .failed || $0.status == .timeout }.count
        return KillCount(
            mutant: mutant, kills: kills, report: ConformanceReport.SubjectReport(mutant.subject, results: results))
    }

    static func render(_ counts: [KillCount], runs: Int) -> String {
        var lines = ["", "kills (mutant [fault]: runs in which its rule caught it)"]
        for count in counts {
            let verdict =
                count.kills == runs
                ? "\(count.kills)/\(runs)"
                : "ESCAPED \(runs - count.kills) of \(runs): " + KillMatrix.escapes(count.report.results)
            lines.append("  \(count.mutant.subject.name) [\(count.mutant.fault)] \(count.mutant.killer): \(verdict)")
        }
        let escaped = counts.filter { $0.kills < runs }.count
        lines.append(
            escaped == 0
                ? "\(counts.count) mutants, each caught by its rule in \(runs) of \(runs) runs"
                : "\(escaped) of \(counts.count) mutants escaped their rule in some run")
        return lines.joined(separator: "\n")
    }
}
