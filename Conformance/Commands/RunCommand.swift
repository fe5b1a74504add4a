import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

extension ConformanceCommand {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the rules against subjects and write conformance.json and conformance.junit.xml.",
            discussion: """
                Each subject runs in a child process under a watchdog: a hung rule becomes `timeout` \
                (with every thread's stack, when gdb is installed), a crash becomes `error`, and the \
                run goes on. Exit status: 0 when no gating rule fails, 1 when one does, 64 for bad usage.
                """
        )

        @Option(
            name: .customLong("subject"),
            help:
                """
                Subjects or groups (reference, third-party, mutant, all); repeatable or comma-separated; default: \
                every subject but the mutants.
                """
        )
        var subjects: [String] = []

        @OptionGroup var selection: RuleSelection
        @OptionGroup var timingOptions: TimingOptions
        @OptionGroup var explorationOptions: ExplorationOptions

        @Option(help: "Folder for conformance.json and conformance.junit.xml.")
        var reportDir = "Reports"

        @OptionGroup var execution: ExecutionOptions
        @OptionGroup var sharding: ShardOptions

        func validate() throws {
            _ = try Toolkit.current.select(subjects)
        }

        func run() throws {
            let toolkit = Toolkit.current
            let rules = selection.selected
            let shard = try sharding.resolve()
            let timing = explorationOptions.timing(timingOptions.timing())
            let exploration = explorationOptions.exploration
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let started = ContinuousClock.now
            if let shard { printError("conformance: \(shard), partitioned by subject × rule") }
            let plan = try toolkit.select(subjects).map { subject in
                let mine =
                    shard.map { shard in rules.filter { shard.contains(Shard.pairID(subject.name, $0.id.rawValue)) } }
                    ?? rules
                return (subject: subject, rules: mine)
            }
            let (inProcess, memoryCap, capGiven) = (
                execution.inProcess, execution.memoryCap, execution.workerMemory != nil
            )
            let results = SubjectPhases.run(
                plan, width: inProcess ? 1 : ProcessInfo.processInfo.activeProcessorCount,
                judge: { subject, rules, atOnce in
                    // The default cap is the machine's half, for one worker: workers side by
                    // side share it, so that two growing at once still leave room for their stacks.
                    IsolatedRules.run(
                        subject: subject, rules: rules, timing: timing, exploration: exploration,
                        inProcess: inProcess, memoryCap: capGiven ? memoryCap : memoryCap / UInt64(atOnce))
                },
                done: { subject, results in
                    printError(
                        """
                        \(subject.name): \(results.filter { $0.status == .passed }.count) passed, \
                        \(results.filter { $0.status.isFailure }.count) not passed, \
                        \(results.filter { $0.status == .skipped }.count) skipped
                        """
                    )
                })
            let subjectReports = zip(plan, results).map { ConformanceReport.SubjectReport($0.subject, results: $1) }
            let report = ConformanceReport(
                rules: rules, subjects: subjectReports, timing: timing, timingScale: timingOptions.timingScale,
                shard: shard, gate: toolkit.gate)
            try Self.finish(report, in: folder, quiet: execution.quiet, started: started)
        }

        /// Writes the reports, prints the table, and fails when something gates.
        static func finish(_ report: ConformanceReport, in folder: URL, quiet: Bool, started: ContinuousClock.Instant)
            throws
        {
            let written = try ReportFiles.write(report, to: folder)
            print(
                quiet
                    ? report.table().components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
                    : report.table())
            print(
                """
                reports: \(written.map(\.path).joined(separator: ", ")) \
                (\(String(format: "%.1f", (ContinuousClock.now - started).timeInterval)) s)
                """
            )
            if report.summary.gatingFailures > 0 { throw ExitCode.failure }
        }
    }
}
