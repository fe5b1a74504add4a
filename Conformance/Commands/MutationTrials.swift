import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

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
    /// Lets the trials of several mutants run at once, but a batch with a rule that races
    /// the cores alone.
    let cores = CoreGate()

    /// Every pair with the switch off: results, and the mutants each reached.
    func baseline(maximumID: Int) throws -> (results: [Pair: RuleResult], reach: Reach) {
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
            let broken = zip(rules, outcomes).filter { !Self.killable.contains($1.status) && $1.status != .skipped }
            printError(
                "baseline \(subject.name): \(outcomes.filter { $0.status == .passed }.count) passed"
                    + (broken.isEmpty
                        ? ""
                        : """
                        ; with every mutant off, \
                        \(broken.map { "\($0.id) \($1.status.rawValue)" }.joined(separator: ", ")): those rules \
                        kill nothing here (if the package's own build passes them, the schemata changed its \
                        meaning: a mutator bug)
                        """)
            )
        }
        let reach = Self.reach(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "", rules: rules.map(\.id))
        return (results, reach)
    }

    /// What the coverage run saw: the mutants each pair reached, and those reached only
    /// before a worker's first rule, which no rule's own work points at.
    struct Reach {
        var pairs: [Pair: Set<Int>] = [:]
        var beforeRulesOnly: Set<Int> = []
    }

    /// The mutants each pair reached, from the coverage log's `subject<TAB>rule<TAB>ids`
    /// lines; a line for the rule `*` (reached before the worker's first rule) counts for
    /// each of `rules`.
    static func reach(log: String, rules: [RuleID]) -> Reach {
        var reach: [Pair: Set<Int>] = [:]
        var before: Set<Int> = []
        var during: Set<Int> = []
        for line in log.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let subject = String(fields[0])
            let ids = fields[2].split(separator: ",").compactMap { Int($0) }
            // Reached before the worker's first rule: by every rule of the subject.
            let beforeRules = fields[1] == MutationCoverage.beforeEveryRule
            if beforeRules { before.formUnion(ids) } else { during.formUnion(ids) }
            let reachedBy = beforeRules ? rules : RuleID(rawValue: String(fields[1])).map { [$0] } ?? []
            for rule in reachedBy { reach[Pair(subject: subject, rule: rule), default: []].formUnion(ids) }
        }
        return Reach(pairs: reach, beforeRulesOnly: before.subtracting(during))
    }

    /// For each file, the subjects that exercise it specifically: those reaching one of its
    /// mutants that not every subject reaches. Code every subject runs (the loop the runner
    /// drives the main queue with, say) says nothing about which subject it serves; its
    /// file's other mutants do, and a mutant's trials try those subjects first.
    static func homeSubjects(of mutants: [MutantManifest.Mutant], reachedBy: [Int: [Pair]]) -> [String: Set<String>] {
        let everySubject = Set(reachedBy.values.joined().map(\.subject))
        var home: [String: Set<String>] = [:]
        for mutant in mutants where mutant.runsOnce != true {
            let subjects = Set((reachedBy[mutant.id] ?? []).map(\.subject))
            if !subjects.isEmpty, subjects != everySubject { home[mutant.file, default: []].formUnion(subjects) }
        }
        return home
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
    /// subject at a time, stopping at the first kill unless `allRules`. With `spread` (code
    /// no single rule points at: a static's initializer, what runs before the first rule)
    /// each subject's cheapest pair comes first, since such code that breaks a subject
    /// breaks its cheapest rule too, whichever subject that is.
    func trials(of mutant: Int, pairs: [Pair], durations: [Pair: Double], allRules: Bool, spread: Bool = false)
        -> [MutationReport.Trial]
    {
        var batches: [[Pair]] = []
        var rest: [String: [Pair]] = [:]
        var order: [String] = []
        for pair in pairs {
            if rest[pair.subject] == nil { order.append(pair.subject) }
            rest[pair.subject, default: []].append(pair)
        }
        if spread {
            batches = order.map { [rest[$0]!.removeFirst()] }
        } else if let first = pairs.first {
            batches = [[first]]
            rest[first.subject]!.removeFirst()
        }
        batches += order.compactMap { rest[$0]!.isEmpty ? nil : rest[$0]! }
        var trials: [MutationReport.Trial] = []
        for batch in batches {
            guard let subject = subjects.first(where: { $0.name == batch[0].subject }) else { continue }
            let batchRules = batch.compactMap { pair in rules.first { $0.id == pair.rule } }
            var timing = self.timing
            let slowest = batch.map { durations[$0] ?? 1 }.max() ?? 1
            timing.ruleTimeout = .seconds(slowest * 4) + mutantTimeout
            // The first failure, hang or crash is the kill: the rest of the batch does not run.
            let results = cores.run(exclusive: batchRules.contains { $0.needsIdleCores }) {
                IsolatedRules.run(
                    subject: subject, rules: batchRules, timing: timing, executable: tool,
                    environment: ["SCHEDULER_MUTANT": String(mutant)], stopAtFirstKill: !allRules)
            }.filter { $0.message != IsolatedRules.notRunAfterKill }
            trials += results.map {
                MutationReport.Trial(
                    subject: subject.name, rule: $0.rule.rawValue, status: $0.status,
                    durationSeconds: $0.durationSeconds,
                    message: $0.message.map { String($0.prefix(400)) })
            }
            if !allRules, trials.contains(where: { $0.kill != nil }) { break }
        }
        return trials
    }
}
