import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerReporting
import SchedulerStress

/// The `stress` command, as a library: give it your subjects and it is the whole tool this
/// project uses on its own schedulers — multithreaded scenarios, each run in a child
/// process under a watchdog, with latency histograms, allocation counts and JSON reports.
///
/// ```swift
/// // Sources/my-stress/main.swift
/// import SchedulerHarness
/// StressTool.main(subjects: [ConformanceSubject(name: "mine") { MyScheduler() }])
/// ```
///
/// Subcommands: `run` (the default), `compare`, `table`, `list-scenarios`,
/// `calibrate-allocations`.
public enum StressTool {
    /// Runs the command line of this process against `subjects`; `explanations` are printed
    /// beside the failures they explain and excuse them from the gate. Does not return.
    public static func main(subjects: [ConformanceSubject], explanations: Explanations = [:], gate: Gate? = nil)
        -> Never
    {
        main(Toolkit(subjects: subjects, explanations: explanations, gate: gate))
    }

    /// Runs the command line of this process with `toolkit`. Does not return.
    public static func main(_ toolkit: Toolkit) -> Never {
        Toolkit.install(toolkit)
        StressCommand.main()
        exit(0)
    }
}

struct StressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress",
        abstract: "Stress schedulers: classified outcomes, latency histograms, allocation statistics.",
        subcommands: [
            Run.self, Merge.self, Compare.self, Export.self, Table.self, ListScenarios.self, CalibrateAllocations.self,
            Worker.self,
        ],
        defaultSubcommand: Run.self
    )
}

/// Exit codes of `stress` and `stress compare`, distinct so a nightly job can branch on them.
enum StressExit {
    static let failed: Int32 = 1
    static let usage: Int32 = 64
    static let regression: Int32 = 10
    static let improvementOnly: Int32 = 11
    static let baselineMissing: Int32 = 12
}

extension StressCommand {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenarios × subjects and write Reports/stress/<UTC timestamp>.json and latest.json.",
            discussion:
                "Exit status: 0 when no reference subject shows a forbidden outcome, a timeout or an error; 1 otherwise; 64 for bad usage."
        )

        @Option(name: .customLong("scenario"), help: "Scenarios (repeatable or comma-separated); default: all.")
        var scenarios: [String] = []

        @Option(
            name: .customLong("subject"),
            help:
                "Subjects or groups (reference, third-party, mutant, all); repeatable or comma-separated; default: every subject but the mutants."
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

        @OptionGroup var sharding: ShardOptions

        mutating func validate() throws {
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
            let mine = plans.indices.filter { shard?.contains(Shard.pairID(plans[$0].0.id, plans[$0].1.name)) ?? true }
            let preload = allocator == "system" ? nil : JemallocLibrary.path
            let applicableHere = mine.filter { plans[$0].0.skipReason(for: plans[$0].1) == nil }.count
            printError(
                "stress: \(shard.map { "\($0), " } ?? "")\(applicableHere) runs of \(String(format: "%.1f", perRun)) s, \(threads) threads, seed \(seed), allocator \(preload == nil ? "system" : "jemalloc")"
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
        }

        /// Writes the reports, prints the table, and fails when something gates.
        static func finish(_ report: StressReport, in folder: URL) throws {
            let written = try ReportFiles.write(report, to: folder)
            print(StressTable.render(report))
            print("reports: \(written.map(\.path).joined(separator: ", "))")
            if report.summary.gatingFailures > 0 { throw ExitCode(StressExit.failed) }
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the reports of every shard of one stress run into the report of the whole run.",
            discussion:
                "Writes <UTC timestamp>.json, latest.json and latest.junit.xml as `run` does. Exit status as for `run`; 64 when the reports are not every shard of one run exactly once."
        )

        @Argument(help: "The shards' reports (each shard's latest.json).")
        var reports: [String] = []

        @Option(help: "Folder for the merged reports.")
        var reportDir = "Reports/stress"

        func run() throws {
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let parts = try MergeInput.read(StressReport.self, paths: reports, what: "stress")
            let merged = try MergeInput.merge { () throws(MergeError) in
                try StressReport.merged(parts, gate: Toolkit.current.gate)
            }
            try Run.finish(merged, in: folder)
        }
    }

    struct ListScenarios: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-scenarios", abstract: "List the stress scenarios and what each needs.")

        func run() {
            for scenario in StressCatalogue.all {
                print("\(scenario.id.padding(toLength: 24, withPad: " ", startingAt: 0)) \(scenario.summary)")
            }
        }
    }

    /// The child side of isolation; not for people.
    struct Worker: ParsableCommand {
        static let configuration = CommandConfiguration(shouldDisplay: false)

        @Option var subject: String
        @Option var scenario: String
        @Option var seed: UInt64
        @Option var duration: Double
        @Option var threads: Int

        func run() throws {
            guard let subject = Toolkit.current.subject(named: subject) else {
                throw ValidationError("unknown subject '\(subject)'")
            }
            guard let scenario = StressCatalogue.scenario(scenario) else {
                throw ValidationError("unknown scenario '\(scenario)'")
            }
            let plan = RunPlan(
                scenario: scenario.id, subject: subject.name, threads: threads, seed: seed, durationSeconds: duration)
            StressWorker.run(plan, scenario: scenario, subject: subject)
        }
    }
}

/// `--scenario` values, checked against the catalogue.
enum ScenarioSelection {
    /// The named scenarios, each once, in the order first named; all of them when none is.
    static func select(_ names: [String]) throws -> [StressScenario] {
        let names = splitList(names)
        if names.isEmpty { return StressCatalogue.all }
        var seen = Set<String>()
        return try names.compactMap { name in
            guard let scenario = StressCatalogue.scenario(name) else {
                throw ValidationError(
                    "unknown scenario '\(name)'; known: \(StressCatalogue.all.map(\.id).joined(separator: ", "))")
            }
            return seen.insert(scenario.id).inserted ? scenario : nil
        }
    }
}

/// What one worker process runs.
struct RunPlan: Sendable {
    var scenario: String
    var subject: String
    var threads: Int
    var seed: UInt64
    var durationSeconds: Double

    /// The command line that repeats this run.
    var reproduce: String {
        "\(CommandLine.arguments[0]) run --scenario \(scenario) --subject \(subject) --seed \(seed) --duration \(durationSeconds) --threads \(threads)"
    }

    var workerArguments: [String] {
        [
            "worker", "--subject", subject, "--scenario", scenario, "--seed", String(seed), "--duration",
            String(durationSeconds), "--threads", String(threads),
        ]
    }
}

/// Budgets such as `90s`, `30m`, `2h`.
enum Budget {
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600]
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value.isFinite,
            value > 0,
            value * unit <= 7 * 86_400
        else { return nil }
        return value * unit
    }
}
