import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

extension StressCommand {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenarios × subjects and write Reports/stress/<UTC timestamp>.json and latest.json.",
            discussion:
                """
                Exit status: 0 when no reference subject shows a forbidden outcome, a timeout or an error; 1 \
                otherwise; 64 for bad usage.
                """
        )

        @Option(name: .customLong("scenario"), help: "Scenarios (repeatable or comma-separated); default: all.")
        var scenarios: [String] = []

        @Option(
            name: .customLong("subject"),
            help:
                """
                Subjects or groups (reference, third-party, mutant, all); repeatable or comma-separated; default: \
                every subject but the mutants.
                """
        )
        var subjects: [String] = []

        @Option(
            help:
                "Wall-clock budget for the whole run, spread over its runs: 90s, 30m, 2h. Default: --duration per run.")
        var budget: String?

        @Option(help: "Seconds each scenario × subject run keeps going (when no --budget).")
        var duration: Double = 1

        @Option(help: "Producer threads; default: cores × --oversubscribe.")
        var threads: Int?

        @Option(help: "Producer threads per core when --threads is not given.")
        var oversubscribe: Int = 2

        @Option(help: "Seed for every random choice; default: random (printed and reported).")
        var seed: UInt64?

        @Option(help: "Folder for the reports.")
        var reportDir = "Reports/stress"

        @Option(help: "auto (jemalloc when installed), jemalloc, or system.")
        var allocator = "auto"

        @Option(help: "Seconds a run may overrun its share of the budget before it counts as a hang.")
        var hangGrace: Double = 45

        @Option(
            help:
                """
                Fail unless the runs made at least this many operations in all (the nightly soak asks for \
                100000000).
                """
        )
        var minimumOperations: Int?

        @OptionGroup var sharding: ShardOptions

        mutating func validate() throws {
            if let minimumOperations, minimumOperations < 1 {
                throw ValidationError("--minimum-operations must be a positive count, got \(minimumOperations)")
            }
            _ = try ScenarioSelection.select(scenarios)
            _ = try Toolkit.current.select(subjects)
            if let budget, Budget.seconds(budget) == nil {
                throw ValidationError(
                    "bad budget '\(budget)': use a positive number with s, m or h, such as 90s, 30m or 2h, up to a week"
                )
            }
            guard duration.isFinite, duration > 0, duration <= 86_400 else {
                throw ValidationError("--duration must be between 0 and 86400 seconds")
            }
            guard hangGrace.isFinite, hangGrace > 0, hangGrace <= 3_600 else {
                throw ValidationError("--hang-grace must be between 0 and 3600 seconds")
            }
            if let threads, threads < 1 || threads > 1_024 {
                throw ValidationError("--threads must be between 1 and 1024")
            }
            guard (1...64).contains(oversubscribe) else {
                throw ValidationError("--oversubscribe must be between 1 and 64")
            }
            try JemallocLibrary.validate(allocator: allocator)
        }

        func run() throws {
            let threads = threads ?? ProcessInfo.processInfo.activeProcessorCount * oversubscribe
            let seed = seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
            let selectedScenarios = try ScenarioSelection.select(scenarios)
            let selectedSubjects = try Toolkit.current.select(subjects)
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let plans = selectedScenarios.flatMap { scenario in
                selectedSubjects.map { subject in (scenario, subject) }
            }
            let shard = try sharding.resolve()
            // The whole run's plan sets each run's length and seed, so a shard's runs are the
            // very runs the unsharded run would make.
            let applicable = plans.filter { $0.0.skipReason(for: $0.1) == nil }.count
            let perRun = budget.flatMap(Budget.seconds).map { max(1, $0 / Double(max(applicable, 1))) } ?? duration
            let mine = plans.indices.filter {
                shard?.contains(Shard.pairID(plans[$0].0.id.rawValue, plans[$0].1.name)) ?? true
            }
            let preload = allocator == "system" ? nil : JemallocLibrary.path
            let applicableHere = mine.filter { plans[$0].0.skipReason(for: plans[$0].1) == nil }.count
            printError(
                """
                stress: \(shard.map { "\($0), " } ?? "")\(applicableHere) runs of \(String(format: "%.1f", perRun)) \
                s, \(threads) threads, seed \(seed), allocator \(preload == nil ? "system" : "jemalloc")
                """
            )
            var runs: [StressRun] = []
            for index in mine {
                let (scenario, subject) = plans[index]
                let runSeed = seed &+ UInt64(index)
                if let reason = scenario.skipReason(for: subject) {
                    runs.append(
                        StressRun(
                            scenario: scenario, subject: subject, threads: threads, seed: runSeed, status: .skipped,
                            message: reason))
                    continue
                }
                let plan = RunPlan(
                    scenario: scenario.id, subject: subject.name, threads: threads, seed: runSeed,
                    durationSeconds: perRun)
                let run = IsolatedRun.run(
                    plan, scenario: scenario, subject: subject, jemalloc: preload,
                    grace: .nanoseconds(Int64(hangGrace * 1e9)))
                printError(
                    "  \(scenario.id) × \(subject.name): \(run.status.rawValue)\(run.message.map { " — \($0)" } ?? "")")
                runs.append(run)
            }
            let report = StressReport(
                runs: runs, seed: seed, budgetSeconds: perRun * Double(applicableHere),
                allocator: preload == nil ? "system" : "jemalloc",
                scenarios: selectedScenarios.map(\.id), subjects: selectedSubjects.map(\.name), shard: shard,
                gate: Toolkit.current.gate
            )
            try Self.finish(report, in: folder)
            if let minimumOperations {
                let made = runs.reduce(0) { $0 + $1.operations }
                guard made >= minimumOperations else {
                    printError(
                        """
                        stress: the runs made \(made) operations, short of the \(minimumOperations) asked: give them a \
                        longer --budget
                        """
                    )
                    throw ExitCode(StressExit.failed)
                }
                printError("stress: \(made) operations in all, of at least \(minimumOperations) asked")
            }
        }

        /// Writes the reports, prints the table, and fails when something gates.
        static func finish(_ report: StressReport, in folder: URL) throws {
            let written = try ReportFiles.write(report, to: folder)
            print(report.table())
            print("reports: \(written.map(\.path).joined(separator: ", "))")
            if report.summary.gatingFailures > 0 { throw ExitCode(StressExit.failed) }
        }
    }
}
