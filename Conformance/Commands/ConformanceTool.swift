import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerReporting

/// The `conformance` command, as a library: give it your subjects and it is the whole tool
/// this project uses on its own schedulers, with the same subcommands, flags, process
/// isolation and reports.
///
/// ```swift
/// // Sources/my-conformance/main.swift
/// import SchedulerHarness
/// ConformanceTool.main(subjects: [ConformanceSubject(name: "mine") { MyScheduler() }])
/// ```
///
/// Subcommands: `run` (the default), `list-rules`, `list-subjects`, `mutants`,
/// `matrix-markdown`. Exit status: 0 when nothing gates, 1 when a gating rule fails (see
/// ``Gate``) or a mutant survives, 64 for bad usage.
public enum ConformanceTool {
    /// Runs the command line of this process against `subjects` (and `mutants`, whose
    /// subjects are known too); `explanations` are printed beside the failures they explain
    /// and excuse them from the gate. Does not return.
    public static func main(
        subjects: [ConformanceSubject], mutants: [Mutant] = [], explanations: Explanations = [:], gate: Gate? = nil
    ) -> Never {
        main(Toolkit(subjects: subjects, mutants: mutants, explanations: explanations, gate: gate))
    }

    /// Runs the command line of this process with `toolkit`. Does not return.
    public static func main(_ toolkit: Toolkit) -> Never {
        Toolkit.install(toolkit)
        ConformanceCommand.main(Legacy.rewrite(Array(CommandLine.arguments.dropFirst())))
        exit(0)
    }
}

/// Flags of the single-command CLI that became subcommands, still accepted.
enum Legacy {
    static func rewrite(_ arguments: [String]) -> [String] {
        let moved = [
            "--list-rules": "list-rules", "--list-subjects": "list-subjects", "--mutants": "mutants",
            "--markdown-matrix": "matrix-markdown",
        ]
        guard let index = arguments.firstIndex(where: { moved[$0] != nil }) else { return arguments }
        var rest = arguments
        let subcommand = moved[rest.remove(at: index)]!
        return [subcommand] + rest
    }
}

struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Check schedulers against the numbered rules of the conformance catalogue.",
        subcommands: [
            Run.self, Merge.self, DashboardCommand.self, ListRules.self, ListSubjects.self, MutantsCommand.self,
            MatrixMarkdown.self, Worker.self, TrapProbe.self,
        ],
        defaultSubcommand: Run.self
    )
}

/// `--rule` and `--category`: which rules to run.
struct RuleSelection: ParsableArguments {
    @Option(name: .customLong("rule"), help: "Only these rule IDs, e.g. ORD-1 (repeatable or comma-separated).")
    var rules: [String] = []

    @Option(name: .customLong("category"), help: "Only these categories, by prefix (ORD) or name (ordering).")
    var categories: [String] = []

    func validate() throws {
        for id in splitList(rules) where RuleCatalogue.rule(id.uppercased()) == nil {
            throw ValidationError("unknown rule '\(id)'; `list-rules` lists them")
        }
        for name in splitList(categories) where Self.category(named: name) == nil {
            throw ValidationError(
                "unknown category '\(name)'; use one of \(Rule.Category.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
    }

    /// The selected rules in catalogue order; all of them when nothing is selected.
    var selected: [Rule] {
        let ids = Set(splitList(rules).map { $0.uppercased() })
        let categories = Set(splitList(categories).compactMap(Self.category(named:)))
        return RuleCatalogue.all.filter { rule in
            (ids.isEmpty || ids.contains(rule.id.rawValue))
                && (categories.isEmpty || categories.contains(rule.category))
        }
    }

    private static func category(named name: String) -> Rule.Category? {
        Rule.Category.allCases.first {
            $0.rawValue.caseInsensitiveCompare(name) == .orderedSame
                || "\($0)".caseInsensitiveCompare(name) == .orderedSame
        }
    }
}

/// `--in-process` and `--quiet`: how subjects run and how much is printed.
struct ExecutionOptions: ParsableArguments {
    @Flag(help: "Run every subject in this process (no crash isolation).")
    var inProcess = false

    @Flag(help: "Print only the summary and the failures, not the whole table.")
    var quiet = false
}

/// `--timing-scale` and `--rule-timeout`: the calibrated time bounds.
struct TimingOptions: ParsableArguments {
    @Option(help: "Multiply every calibrated time bound by this factor (a slow machine wants > 1).")
    var timingScale: Double = 1

    @Option(help: "Seconds one rule may run before it is reported as a timeout.")
    var ruleTimeout: Double?

    func validate() throws {
        guard timingScale.isFinite, timingScale > 0 else {
            throw ValidationError("--timing-scale must be a positive number, got \(timingScale)")
        }
        if let ruleTimeout, !(ruleTimeout.isFinite && ruleTimeout > 0) {
            throw ValidationError("--rule-timeout must be a positive number of seconds, got \(ruleTimeout)")
        }
    }

    /// The calibrated timing with the overrides; `mustHappen` capped at `cap` when given
    /// (a mutant's missing event is the expected outcome: no need to wait 10 s for each).
    func timing(cappingMustHappenAt cap: Duration? = nil) -> Timing {
        var timing = Timing.calibrate(scale: timingScale)
        if let cap { timing.mustHappen = min(timing.mustHappen, cap * timingScale) }
        if let ruleTimeout { timing.ruleTimeout = .nanoseconds(Int64(ruleTimeout * 1e9)) }
        return timing
    }
}

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
                "Subjects or groups (reference, third-party, mutant, all); repeatable or comma-separated; default: every subject but the mutants."
        )
        var subjects: [String] = []

        @OptionGroup var selection: RuleSelection
        @OptionGroup var timingOptions: TimingOptions

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
            let timing = timingOptions.timing()
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let started = ContinuousClock.now
            if let shard { printError("conformance: \(shard), partitioned by subject × rule") }
            let subjectReports = try toolkit.select(subjects).map { subject in
                let mine =
                    shard.map { shard in rules.filter { shard.contains(Shard.pairID(subject.name, $0.id.rawValue)) } }
                    ?? rules
                let results =
                    mine.isEmpty
                    ? []
                    : IsolatedRules.run(subject: subject, rules: mine, timing: timing, inProcess: execution.inProcess)
                printError(
                    "\(subject.name): \(results.filter { $0.status == .passed }.count) passed, \(results.filter { $0.status.isFailure }.count) not passed, \(results.filter { $0.status == .skipped }.count) skipped"
                )
                return ConformanceReport.SubjectReport(subject, results: results)
            }
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
                "reports: \(written.map(\.path).joined(separator: ", ")) (\(String(format: "%.1f", (ContinuousClock.now - started).timeInterval)) s)"
            )
            if report.summary.gatingFailures > 0 { throw ExitCode.failure }
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the conformance.json reports of every shard of one run into the report of the whole run.",
            discussion:
                "Exit status as for `run` (1 when a gating rule failed in any shard); 64 when the reports are not every shard of one run exactly once."
        )

        @Argument(help: "The shards' conformance.json reports.")
        var reports: [String] = []

        @Option(help: "Folder for the merged conformance.json and conformance.junit.xml.")
        var reportDir = "Reports"

        @Flag(help: "Print only the summary and the failures, not the whole table.")
        var quiet = false

        func run() throws {
            let started = ContinuousClock.now
            let folder = URL(fileURLWithPath: reportDir, isDirectory: true)
            try ReportFiles.prepare(folder)
            let parts = try MergeInput.read(ConformanceReport.self, paths: reports, what: "conformance")
            let merged = try MergeInput.merge { () throws(MergeError) in
                try ConformanceReport.merged(parts, gate: Toolkit.current.gate)
            }
            try Run.finish(merged, in: folder, quiet: quiet, started: started)
        }
    }

    struct ListRules: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rule catalogue.")

        @Flag(help: "Print the catalogue as a Markdown document (Conformance/RULES.md).")
        var markdown = false

        func run() {
            print(markdown ? RuleDocument.markdown() : RuleDocument.list())
        }
    }

    struct ListSubjects: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the subjects this tool knows, with their kind, origin and capabilities.")

        func run() {
            for subject in Toolkit.current.subjects {
                print(
                    "\(subject.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(subject.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(subject.origin.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(subject.capabilities)"
                )
            }
        }
    }

    struct MatrixMarkdown: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix-markdown",
            abstract:
                "Print a conformance.json report as a Markdown rule × subject matrix of its third-party subjects, every deviation explained."
        )

        @Argument(help: "The report to render.")
        var report = "Reports/conformance.json"

        @Option(
            help:
                "Replace what stands between <!-- matrix:begin --> and <!-- matrix:end --> in this file, instead of printing."
        )
        var into: String?

        func run() throws {
            let decoded = try ReportFiles.read(ConformanceReport.self, at: report, what: "a conformance report")
            try GeneratedSection(name: "matrix").publish(
                MatrixDocument.render(decoded, explanations: Toolkit.current.explanations), into: into)
        }
    }

    /// The child side of isolation; not for people.
    struct Worker: ParsableCommand {
        static let configuration = CommandConfiguration(shouldDisplay: false)

        @Option var subject: String
        @Option var timingJson: String
        @OptionGroup var selection: RuleSelection

        func run() throws {
            guard let subject = Toolkit.current.subject(named: subject) else {
                throw ValidationError("unknown subject '\(subject)'")
            }
            let timing = try JSONDecoder().decode(Timing.self, from: Data(timingJson.utf8))
            RuleWorker.run(subject: subject, rules: selection.selected, timing: timing)
        }
    }
}

extension ConformanceCommand {
    /// Runs code that a correct subject makes trap, for a rule in the parent process.
    struct TrapProbe: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "trap-probe", shouldDisplay: false)

        @Option var subject: String
        @Option var probe: String

        func run() throws {
            TrapProbeCommand.run(subject: subject, probe: probe)
        }
    }
}

/// The catalogue as people read it.
enum RuleDocument {
    /// The catalogue as Markdown: how rules judge, then one table per category, every field
    /// of every rule.
    static func markdown() -> String {
        var lines = [
            "# The rule catalogue",
            "",
            "Generated by `make rules` from the catalogue in `Conformance/SchedulerConformance/Rules/`; do not edit by hand.",
            "\(RuleCatalogue.all.count) rules. Levels: **required** failures fail the run; **stochastic** and **optional** ones are reported only.",
            "",
            "## How a rule judges",
            "",
            "- **It forces the situation it judges.** Work is queued while the scheduler is held by a blocking action, so a stack, an unstable heap or a second worker shows; disposal is issued from another thread while the worker is parked; producers are released together; a concurrent scheduler's actions wait for each other. A rule whose situation still did not occur (two workers never overlapped, say) reports **inconclusive**, never passed.",
            "- **No slack that equals the bug.** \"Nothing starts after `dispose()` returned\" counts starts after the return: the rule disposes while no tick or run can be in flight (the scheduler held, or from inside the scheduler's own action), and allows none. A repeating timer is judged at every point of its grid (TIM-6, TIM-12) beside a zero-leeway timer of the suite's own on the same grid: a point with no tick within leeway + a fixed path allowance + the suite's timer's lateness at that point fails, unless a plain action the suite's timer handed the subject there was held up as long (the subject's queue had no thread to run on), so a period stretched by one leeway fails however the machine is loaded, and a stall the suite's timer or the subject's queue saw too (merged ticks) is excused.",
            "- **Its own clock.** Timer rules read the scheduler's `now` and the suite's monotonic clock: a timer must be late on both (TIM-1), and a real-time `now` must keep pace with the suite's (TIM-13). A subject may declare a wall-clock step hook (`ConformanceSubject(wallClockStep:)`) that moves the wall clock its scheduler reads; TIM-14 then checks that a jump neither stalls nor hastens a timer. Without the hook that rule is skipped: a jump of the real clock cannot be made from a test, so a scheduler that keeps wall-clock deadlines without declaring one cannot be caught from outside.",
            "- **Guaranteed by the protocol.** A rule that no scheduler built on this package's API can fail (the current scheduler is set only by `CurrentScheduler.run(as:)`, which always restores) still runs, as a check of the library, but is reported as **guaranteed**, never as the subject's pass.",
            "- **Messages say what was seen.** An action that ran after a sentinel scheduled after it is reported as reordered, not lost; every result carries its rule's level and whether the risky situation was exercised.",
            "- **Races are made to meet, and counted.** A race needs both threads running at once, which a loaded machine can withhold for a whole run: CAN-3 times each disposal against a pacer the worker is spinning in and counts only trials where both ran, ORD-2 pins its producers to distinct cores and gives actions lengths of up to 250 µs so an overlap at the hand-off lasts long enough to be counted, ORD-3 counts `schedule` calls that overlapped, THR-2 holds the released scheduler while a second path could run its work. Such a rule runs more rounds until the race happened often enough, or reports inconclusive.",
            "- **Every required rule has mutants** (`Conformance/Mutants/`): schedulers wrong in one subtle way that claim what a correct one claims. `make conformance-mutants` runs each mutant's rule ten times and fails unless all ten catch it; `make test` does the same; `make conformance-mutants-loaded` does it with every core kept busy.",
            "",
            "What stays timing-dependent, and so `stochastic`: an absolute bound on how late a timer or a sleep may be (TIM-2, CLK-11: the subject's own timer thread is invisible to the suite, so no evidence can tell its lateness from the machine's), and nothing else. Races are judged by evidence instead of a tolerated rate. CAN-3: a start after a disposal made while the action ahead of it still ran is a violation by the order of events alone; a start more than 5 µs after a disposal that raced the pick-up is excused only with evidence that the worker was held up: its thread lost its core since the pacer ahead of it returned on that same thread (the thread reads its own context-switch count, `getrusage(RUSAGE_THREAD)`, as the pacer ends and as the action starts; a start on another thread, or on a scheduler that cannot be paced, has no evidence and is not judged), or the whole machine paused (the disposing thread watches the clock flat out from the other core until the start: a virtual machine's host pauses every core at once, for 5 to 60 µs, thousands of times a second, and the guest counts none of it). The host also stops one core alone, in about one pause in twenty, which nothing in the guest can see: one unexplained late start is therefore a suspect, and the second in a run a violation, unless the suite's own atomic-claim control, put through a trial after each of the subject's, had one too: then the machine stops threads unseen and the rule is inconclusive (a check-then-run window of a few microseconds gives tens of suspects per run).",
            "",
            "## Clocks and executors",
            "",
            "The CLK and EXE profiles judge Swift concurrency's own schedulers: a subject's kind (`scheduler`, `clock`, `executor`) picks the profile, and rules of another kind are skipped.",
            "",
            "- **Clocks** are adapted by `ClockUnderTest`: real (`ContinuousClock`), immediate (sleeps return at once, time moved to the deadline) or manual (a test clock, advanced from plain code or from a task, with the executor its sleepers should run on). The tasks a rule starts run on that executor, or on the suite's `ProbeExecutor`, which tells when every one of them is parked: so a sleeper is *proven* suspended before it is cancelled (CLK-5) or before time moves (CLK-2, CLK-7), never assumed after a sleep. Manual clocks are judged to the nanosecond (one nanosecond before the deadline, then the deadline); real ones with deadlines just short of whole milliseconds, so rounding shows.",
            "- **Executors** are adapted by `ExecutorUnderTest` and get real jobs made by the runtime: through an actor bound to a serial executor, entered with `Task.immediate` (which enqueues before it returns, so the rule knows the order), or through `Task(executorPreference:)` for a task executor. Order and exclusivity are judged with the executor held by a blocking job while work queues behind it (EXE-2, EXE-3, EXE-6). Isolation is asked of `isIsolatingCurrentContext()` (SE-0471); an executor that answers nil outside its jobs leaves EXE-7 inconclusive, since `checkIsolated()` must then trap, and a trap is judged only where the harness isolates rules in processes of their own.",
        ]
        for category in Rule.Category.allCases {
            lines += [
                "", "## \(category.rawValue) — \(category.title)", "",
                "| ID | level | rule | needs | why | if this fails, check |", "| --- | --- | --- | --- | --- | --- |",
            ]
            for rule in RuleCatalogue.all where rule.category == category {
                let level =
                    rule.guarantee == nil ? rule.level.rawValue : "\(rule.level.rawValue), guaranteed by the protocol"
                let why = rule.guarantee.map { "\(rule.rationale) *Guaranteed:* \($0)" } ?? rule.rationale
                let cells = [rule.id.rawValue, level, rule.title, needs(rule).joined(separator: "; "), why, rule.hint]
                lines.append(
                    "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func needs(_ rule: Rule) -> [String] {
        var needs = rule.requires.names
        if !rule.requiresAnyOf.isEmpty { needs.append("any of " + rule.requiresAnyOf.names.joined(separator: "/")) }
        if !rule.excludes.isEmpty { needs.append("not " + rule.excludes.names.joined(separator: "/")) }
        if rule.needsWallClockStep { needs.append("a wall-clock step hook") }
        return needs
    }

    static func list() -> String {
        RuleCatalogue.all.map { rule in
            let needs = needs(rule)
            return
                "\(rule.id.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(rule.level.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(rule.title)"
                + (needs.isEmpty ? "" : "  [\(needs.joined(separator: "; "))]")
        }.joined(separator: "\n")
    }
}
