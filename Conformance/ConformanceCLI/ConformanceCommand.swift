import ArgumentParser
import Foundation
import ProcessIsolation
import SchedulerConformance
import SchedulerMutants
import SubjectCatalogue
import ThirdPartySubjects

/// `conformance`: runs the rule catalogue against scheduler subjects and writes reports.
@main
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Check schedulers against the numbered rules of the conformance catalogue.",
        discussion: """
        Each subject runs in a child process under a watchdog: a hung rule becomes `timeout` \
        (with every thread's stack, when gdb is installed), a crash becomes `error`, and the \
        run goes on. Exit status: 0 when no required rule fails on a reference subject, 1 when \
        one does (or, with --mutants, when a mutant survives), 64 for bad usage.
        """
    )

    @Option(name: .customLong("subject"), help: "Subjects or groups (reference, third-party) to check; repeatable or comma-separated; default: reference.")
    var subjects: [String] = []

    @Option(name: .customLong("rule"), help: "Only these rule IDs, e.g. ORD-1 (repeatable or comma-separated).")
    var rules: [String] = []

    @Option(name: .customLong("category"), help: "Only these categories, by prefix (ORD) or name (ordering).")
    var categories: [String] = []

    @Flag(help: "Check every mutant instead: run the rule written for each one --runs times and fail unless it caught the mutant every time.")
    var mutants = false

    @Option(help: "With --mutants: how many times to run each mutant's rule (the project's bar is 10).")
    var runs = 1

    @Flag(help: "With --mutants: run the whole catalogue once per mutant instead, and print which rules catch it (the kill matrix).")
    var allRules = false

    @Flag(help: "Check the reference and every third-party subject (the matrix); third parties never fail the run.")
    var matrix = false

    @Flag(help: "List the rule catalogue and exit.")
    var listRules = false

    @Flag(help: "With --list-rules: print the catalogue as a Markdown document (Conformance/RULES.md).")
    var markdown = false

    @Flag(help: "List the known subjects and exit.")
    var listSubjects = false

    @Option(help: "Print a conformance.json report as a Markdown rule × subject matrix of its third-party subjects, with every deviation explained, and exit.")
    var markdownMatrix: String?

    @Option(help: "With --markdown-matrix: replace what stands between <!-- matrix:begin --> and <!-- matrix:end --> in this file, instead of printing.")
    var into: String?

    @Option(help: "Folder for conformance.json and conformance.junit.xml.")
    var reportDir = "Reports"

    @Option(help: "Multiply every calibrated time bound by this factor (a slow machine wants > 1).")
    var timingScale: Double = 1

    @Option(help: "Seconds one rule may run before it is reported as a timeout.")
    var ruleTimeout: Double?

    @Flag(help: "Run every subject in this process (no crash isolation).")
    var inProcess = false

    @Flag(help: "Print only the summary and the failures, not the whole table.")
    var quiet = false

    @Option(help: .hidden)
    var worker: String?

    @Option(help: .hidden)
    var timingJSON: String?

    mutating func validate() throws {
        guard timingScale.isFinite, timingScale > 0 else { throw ValidationError("--timing-scale must be a positive number, got \(timingScale)") }
        if let ruleTimeout, !(ruleTimeout.isFinite && ruleTimeout > 0) {
            throw ValidationError("--rule-timeout must be a positive number of seconds, got \(ruleTimeout)")
        }
        for name in subjectNames where KnownSubjects.select([name]) == nil {
            throw ValidationError("unknown subject '\(name)'; `conformance --list-subjects` lists them")
        }
        for id in ruleIDs where RuleCatalogue.rule(id) == nil {
            throw ValidationError("unknown rule '\(id)'; `conformance --list-rules` lists them")
        }
        for category in categoryNames where Self.category(named: category) == nil {
            throw ValidationError("unknown category '\(category)'; use one of \(Rule.Category.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if (mutants || matrix) && !subjectNames.isEmpty { throw ValidationError("--mutants and --matrix pick the subjects themselves; drop --subject") }
        if mutants && matrix { throw ValidationError("choose one of --mutants and --matrix") }
        guard (1...1_000).contains(runs) else { throw ValidationError("--runs must be between 1 and 1000, got \(runs)") }
        if (runs != 1 || allRules) && !mutants { throw ValidationError("--runs and --all-rules go with --mutants") }
        if runs != 1 && allRules { throw ValidationError("choose one of --runs and --all-rules") }
    }

    func run() throws {
        if listRules { return print(markdown ? Self.ruleDocument() : Self.ruleList()) }
        if let markdownMatrix {
            guard let data = FileManager.default.contents(atPath: markdownMatrix),
                  let report = try? JSONDecoder().decode(ConformanceReport.self, from: data) else {
                throw ValidationError("cannot read a conformance report at '\(markdownMatrix)'")
            }
            let document = MatrixDocument.render(report)
            guard let into else { return print(document) }
            do { try GeneratedSection(name: "matrix").replace(with: document, in: URL(fileURLWithPath: into)) } catch { throw ValidationError(error.description) }
            return
        }
        if listSubjects { return print(KnownSubjects.all.map { "\($0.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \($0.origin.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.capabilities)" }.joined(separator: "\n")) }
        let selectedRules = selectedRuleList()
        if let worker {
            let timing = try JSONDecoder().decode(Timing.self, from: Data((timingJSON ?? "").utf8))
            return Worker.run(subject: KnownSubjects.named(worker)!, rules: selectedRules, timing: timing)
        }
        let timing = timingWithOverrides()
        let subjects = selectedSubjects()
        let reportFolder = URL(fileURLWithPath: reportDir, isDirectory: true)
        try ConformanceReports.prepare(reportFolder)
        if mutants && !allRules {
            let kills = KillCount.run(Mutants.all.filter { selectedRules.map(\.id).contains($0.killer) }, runs: runs, timing: timing, inProcess: inProcess)
            let report = ConformanceReport(rules: selectedRules, subjects: kills.map(\.report), timing: timing)
            try ConformanceReports.write(report, to: reportFolder)
            print(KillCount.render(kills, runs: runs))
            if kills.contains(where: { $0.kills < runs }) { throw ExitCode.failure }
            return
        }
        let started = ContinuousClock.now
        let subjectReports = subjects.map { subject in
            let results = inProcess
                ? ConformanceRunner.run(subject, rules: selectedRules, timing: timing)
                : Supervisor.run(subject: subject, rules: selectedRules, timing: timing)
            let failures = results.filter { $0.status.isFailure }.count
            printError("\(subject.name): \(results.filter { $0.status == .passed }.count) passed, \(failures) not passed, \(results.filter { $0.status == .skipped }.count) skipped")
            return ConformanceReport.SubjectReport(subject, results: results)
        }
        let report = ConformanceReport(rules: selectedRules, subjects: subjectReports, timing: timing)
        try ConformanceReports.write(report, to: reportFolder)
        print(quiet ? report.table().components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n") : report.table())
        if mutants { print(KillMatrix.render(report)) }
        print("reports: \(reportFolder.appendingPathComponent("conformance.json").path), \(reportFolder.appendingPathComponent("conformance.junit.xml").path) (\(String(format: "%.1f", (ContinuousClock.now - started).timeInterval)) s)")
        if mutants ? !KillMatrix.survivors(report).isEmpty : report.summary.gatingFailures > 0 { throw ExitCode.failure }
    }

    private var subjectNames: [String] { Self.split(subjects) }
    private var ruleIDs: [String] { Self.split(rules) }
    private var categoryNames: [String] { Self.split(categories) }

    private static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func category(named name: String) -> Rule.Category? {
        Rule.Category.allCases.first {
            $0.rawValue.caseInsensitiveCompare(name) == .orderedSame || "\($0)".caseInsensitiveCompare(name) == .orderedSame
        }
    }

    private func selectedRuleList() -> [Rule] {
        let ids = Set(ruleIDs.map { $0.uppercased() })
        let categories = Set(categoryNames.compactMap(Self.category(named:)))
        return RuleCatalogue.all.filter { rule in
            (ids.isEmpty || ids.contains(rule.id)) && (categories.isEmpty || categories.contains(rule.category))
        }
    }

    private func selectedSubjects() -> [ConformanceSubject] {
        if mutants { return Mutants.all.map(\.subject) }
        if matrix { return ReferenceSubjects.all + ThirdPartySubjects.all }
        return KnownSubjects.select(subjectNames.isEmpty ? ["reference"] : subjectNames) ?? []
    }

    private func timingWithOverrides() -> Timing {
        var timing = Timing.calibrate(scale: timingScale)
        // A mutant's missing event is the expected outcome: do not wait 10 s for each.
        if mutants { timing.mustHappen = min(timing.mustHappen, .seconds(3) * timingScale) }
        if let ruleTimeout { timing.ruleTimeout = .nanoseconds(Int64(ruleTimeout * 1e9)) }
        return timing
    }

    /// The catalogue as Markdown: how rules judge, then one table per category, every field
    /// of every rule.
    static func ruleDocument() -> String {
        var lines = [
            "# The rule catalogue",
            "",
            "Generated by `make rules` from the catalogue in `Conformance/SchedulerConformance/Rules/`; do not edit by hand.",
            "\(RuleCatalogue.all.count) rules. Levels: **required** failures fail the run; **stochastic** and **optional** ones are reported only.",
            "",
            "## How a rule judges",
            "",
            "- **It forces the situation it judges.** Work is queued while the scheduler is held by a blocking action, so a stack, an unstable heap or a second worker shows; disposal is issued from another thread while the worker is parked; producers are released together; a concurrent scheduler's actions wait for each other. A rule whose situation still did not occur (two workers never overlapped, say) reports **inconclusive**, never passed.",
            "- **No slack that equals the bug.** \"Nothing starts after `dispose()` returned\" counts starts after the return: the rule disposes while no tick or run can be in flight (the scheduler held, or from inside the scheduler's own action), and allows none. Cadence is judged over many ticks (TIM-12), so a period of interval + a few leeways fails however the machine is loaded.",
            "- **Its own clock.** Timer rules read the scheduler's `now` and the suite's monotonic clock: a timer must be late on both (TIM-1), and a real-time `now` must keep pace with the suite's (TIM-13). A subject may declare a wall-clock step hook (`ConformanceSubject(wallClockStep:)`) that moves the wall clock its scheduler reads; TIM-14 then checks that a jump neither stalls nor hastens a timer. Without the hook that rule is skipped: a jump of the real clock cannot be made from a test, so a scheduler that keeps wall-clock deadlines without declaring one cannot be caught from outside.",
            "- **Guaranteed by the protocol.** A rule that no scheduler built on this package's API can fail (the current scheduler is set only by `CurrentScheduler.run(as:)`, which always restores) still runs, as a check of the library, but is reported as **guaranteed**, never as the subject's pass.",
            "- **Messages say what was seen.** An action that ran after a sentinel scheduled after it is reported as reordered, not lost; every result carries its rule's level and whether the risky situation was exercised.",
            "- **Every required rule has mutants** (`Conformance/Mutants/`): schedulers wrong in one subtle way that claim what a correct one claims. `make conformance-mutants` runs each mutant's rule ten times and fails unless all ten catch it; `make test` does the same.",
            "",
            "What stays timing-dependent, and so `stochastic`: a bound on how late a timer may be (TIM-2, TIM-6), drift (TIM-12: heavy load can merge ticks), a dispose racing the start of an action (CAN-3: from outside, a thread preempted between claiming an action and running it looks like a start after `dispose()` returned), and real parallelism (THR-4).",
        ]
        for category in Rule.Category.allCases {
            lines += ["", "## \(category.rawValue) — \(category.title)", "", "| ID | level | rule | needs | why | if this fails, check |", "| --- | --- | --- | --- | --- | --- |"]
            for rule in RuleCatalogue.all where rule.category == category {
                let level = rule.guarantee == nil ? rule.level.rawValue : "\(rule.level.rawValue), guaranteed by the protocol"
                let why = rule.guarantee.map { "\(rule.rationale) *Guaranteed:* \($0)" } ?? rule.rationale
                let cells = [rule.id, level, rule.title, needs(rule).joined(separator: "; "), why, rule.hint]
                lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
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

    private static func ruleList() -> String {
        RuleCatalogue.all.map { rule in
            let needs = needs(rule)
            return "\(rule.id.padding(toLength: 7, withPad: " ", startingAt: 0)) \(rule.level.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(rule.title)" + (needs.isEmpty ? "" : "  [\(needs.joined(separator: "; "))]")
        }.joined(separator: "\n")
    }
}

/// Writes to standard error, for progress that must not mix with the table.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
