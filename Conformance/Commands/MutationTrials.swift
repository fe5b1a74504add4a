import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerReporting

/// The manifest `scheduler-mutator schemata` writes: the mutants and where their code is.
struct MutantManifest: Decodable {
    struct Mutant: Decodable {
        struct Span: Decodable {
            var start: [Int]
            var end: [Int]
            var size: (lines: Int, columns: Int) { (end[0] - start[0], end[1] - start[1]) }
        }
        var id: Int
        var file: String
        var line: Int
        var column: Int
        var `operator`: String
        var context: String
        var original: String
        var mutated: String
        var occurrence: Int
        var schemata: Span
        /// Its code runs once per process (a static's initializer): every pair may kill it.
        var runsOnce: Bool?

        /// The result of a mutant with `verdict`.
        func result(_ verdict: MutationReport.Verdict) -> MutationReport.MutantResult {
            MutationReport.MutantResult(
                id: id, file: file, line: line, column: column, operator: `operator`, context: context,
                original: original, mutated: mutated, occurrence: occurrence, verdict: verdict)
        }
    }
    var files: [String]
    var switchFile: String
    var mutants: [Mutant]
}

/// Runs the catalogue against a schemata build: once with every mutant off, noting which
/// (subject, rule) pairs reach which mutant's code, then each mutant with only the pairs
/// that reach it, cheapest first, until one kills it.
struct MutationTrials {
    /// A (subject, rule) pair.
    struct Pair: Hashable {
        var subject: String
        var rule: RuleID
    }

    /// The schemata build of the tool, and the scratch folder for the coverage map.
    let tool: String
    let scratch: URL
    let subjects: [ConformanceSubject]
    let rules: [Rule]
    let timing: Timing
    /// How much longer than four times its unmutated time a rule may take with a mutant
    /// on before the mutant counts as hung.
    let mutantTimeout: Duration

    /// Every pair with the switch off: results, and the mutants each reached.
    func baseline(maximumID: Int) throws -> (results: [Pair: RuleResult], reach: [Pair: Set<Int>]) {
        let map = scratch.appending(path: "coverage.map")
        let log = URL(fileURLWithPath: map.path + ".log")
        try Data(count: maximumID + 1).write(to: map)
        try? FileManager.default.removeItem(at: log)
        var results: [Pair: RuleResult] = [:]
        let environment = ["SCHEDULER_MUTANT": "0", MutationCoverage.variable: map.path]
        for subject in subjects {
            let outcomes = IsolatedRules.run(
                subject: subject, rules: rules, timing: timing, executable: tool, environment: environment)
            for (rule, result) in zip(rules, outcomes) { results[Pair(subject: subject.name, rule: rule.id)] = result }
            printError("baseline \(subject.name): \(outcomes.filter { $0.status == .passed }.count) passed")
        }
        let reach = Self.reach(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "", rules: rules.map(\.id))
        return (results, reach)
    }

    /// The mutants each pair reached, from the coverage log's `subject<TAB>rule<TAB>ids`
    /// lines; a line for the rule `*` (reached before the worker's first rule) counts for
    /// each of `rules`.
    static func reach(log: String, rules: [RuleID]) -> [Pair: Set<Int>] {
        var reach: [Pair: Set<Int>] = [:]
        for line in log.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let subject = String(fields[0])
            let ids = fields[2].split(separator: ",").compactMap { Int($0) }
            // Reached before the worker's first rule: by every rule of the subject.
            let reachedBy =
                fields[1] == MutationCoverage.beforeEveryRule
                ? rules : RuleID(rawValue: String(fields[1])).map { [$0] } ?? []
            for rule in reachedBy { reach[Pair(subject: subject, rule: rule), default: []].formUnion(ids) }
        }
        return reach
    }

    /// Statuses with which a pair can still kill: it ran and nothing was wrong without mutants.
    static let killable: Set<ResultStatus> = [.passed, .inconclusive, .guaranteed]

    /// The pairs that may kill a mutant whose code runs once per process, when whichever
    /// rule ran first reached it: every killable pair, and every skipped one, since such a
    /// mutant (a capability's bit, say) can change what a subject claims, so that a rule
    /// skipped without it now runs, and fails.
    static func everyPair(_ baseline: [Pair: RuleResult]) -> [Pair] {
        baseline.filter { killable.contains($0.value.status) || $0.value.status == .skipped }.map(\.key)
    }

    /// Runs `mutant` against `pairs` (cheapest first): the cheapest alone, then the rest a
    /// subject at a time, stopping at the first kill unless `allRules`.
    func trials(of mutant: Int, pairs: [Pair], durations: [Pair: Double], allRules: Bool) -> [MutationReport.Trial] {
        var batches: [[Pair]] = []
        if let first = pairs.first { batches.append([first]) }
        var rest: [String: [Pair]] = [:]
        var order: [String] = []
        for pair in pairs.dropFirst() {
            if rest[pair.subject] == nil { order.append(pair.subject) }
            rest[pair.subject, default: []].append(pair)
        }
        batches += order.map { rest[$0]! }
        var trials: [MutationReport.Trial] = []
        for batch in batches {
            guard let subject = subjects.first(where: { $0.name == batch[0].subject }) else { continue }
            let batchRules = batch.compactMap { pair in rules.first { $0.id == pair.rule } }
            var timing = self.timing
            let slowest = batch.map { durations[$0] ?? 1 }.max() ?? 1
            timing.ruleTimeout = .seconds(slowest * 4) + mutantTimeout
            // A hang or a crash is already a kill: no restarted worker waits out the rest.
            let results = IsolatedRules.run(
                subject: subject, rules: batchRules, timing: timing, executable: tool,
                environment: ["SCHEDULER_MUTANT": String(mutant)], stopAfterDeath: !allRules
            ).filter { $0.message != IsolatedRules.notRunAfterDeath }
            trials += results.map {
                MutationReport.Trial(
                    subject: subject.name, rule: $0.rule, status: $0.status, durationSeconds: $0.durationSeconds,
                    message: $0.message.map { String($0.prefix(400)) })
            }
            if !allRules, trials.contains(where: { $0.kill != nil }) { break }
        }
        return trials
    }
}
