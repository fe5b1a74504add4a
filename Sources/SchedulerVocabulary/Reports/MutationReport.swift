import Foundation

/// What `conformance mutate` found: every mutant of a target's sources, whether the rules
/// killed it and how, and the score. Written as `mutation.json`
/// (`Reports/schema/mutation.schema.json`).
public struct MutationReport: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1

    public var schemaVersion = MutationReport.currentSchemaVersion
    public var generatedAt: String
    public var environment: ReportEnvironment
    /// The package and target mutated, and the tool product that checked them.
    public var package: String
    public var target: String
    public var product: String
    /// `release` or `debug`: the scratch build's configuration.
    public var configuration: String
    public var subjects: [String]
    public var operators: [String]
    /// The git ref whose changes alone were mutated (`--since`), if any.
    public var since: String?
    public var seconds: Phases
    /// Every (subject, rule) pair with the mutation switch off: its status, its duration
    /// and how many mutants it reached. Only pairs that passed here can kill.
    public var baseline: [BaselinePair]
    /// Mutants whose code the compiler refused, left out of the build (never scored).
    public var notCompiled: [MutantResult]
    public var mutants: [MutantResult]

    /// The time each phase took.
    public struct Phases: Codable, Sendable, Equatable {
        public var build: Double
        public var baseline: Double
        public var mutants: Double

        public init(build: Double, baseline: Double, mutants: Double) {
            self.build = build
            self.baseline = baseline
            self.mutants = mutants
        }
    }

    /// One (subject, rule) pair of the unmutated run.
    public struct BaselinePair: Codable, Sendable, Equatable {
        public var subject: String
        public var rule: String
        public var status: ResultStatus
        public var durationSeconds: Double
        /// How many mutants' code this pair reached.
        public var reaches: Int

        public init(subject: String, rule: String, status: ResultStatus, durationSeconds: Double, reaches: Int) {
            self.subject = subject
            self.rule = rule
            self.status = status
            self.durationSeconds = durationSeconds
            self.reaches = reaches
        }
    }

    /// What became of a mutant.
    public enum Verdict: String, Codable, Sendable, CaseIterable {
        /// A rule failed, timed out or crashed with it on.
        case killed
        /// Rules reached its code and none noticed.
        case survived
        /// No rule reached its code.
        case uncovered
        /// It survived and a person declared it equivalent to the original.
        case equivalent
        /// The harness could not run it (a launch failure): not scored.
        case error
    }

    /// How a killing rule ended.
    public enum Kill: String, Codable, Sendable {
        case failure, timeout, crash
    }

    /// One (subject, rule) pair run with a mutant on.
    public struct Trial: Codable, Sendable, Equatable {
        public var subject: String
        public var rule: String
        public var status: ResultStatus
        public var durationSeconds: Double
        /// What the rule said, for a kill.
        public var message: String?

        public init(subject: String, rule: String, status: ResultStatus, durationSeconds: Double, message: String?) {
            self.subject = subject
            self.rule = rule
            self.status = status
            self.durationSeconds = durationSeconds
            self.message = message
        }

        /// How this trial killed its mutant, if it did. A worker that died before its first
        /// rule (the mutant broke the subject's construction) is a crash too: the same build
        /// ran every rule with the switch off. Only a worker that could not be started is not.
        public var kill: Kill? {
            switch status {
            case .failed: .failure
            case .timeout: .timeout
            case .error: message?.contains("not started") == true ? nil : .crash
            default: nil
            }
        }
    }

    /// Killed, survived, uncovered and declared-equivalent counts, and the score.
    public struct Tally: Codable, Sendable, Equatable {
        public var mutants = 0
        public var killed = 0
        public var survived = 0
        public var uncovered = 0
        public var equivalent = 0
        public var errors = 0

        public init() {}

        /// Killed ÷ (mutants − declared equivalent − harness errors), in percent; 100 when
        /// nothing is left to score.
        public var score: Double {
            let scored = mutants - equivalent - errors
            return scored == 0 ? 100 : Double(killed) * 100 / Double(scored)
        }

        mutating func add(_ verdict: Verdict) {
            mutants += 1
            switch verdict {
            case .killed: killed += 1
            case .survived: survived += 1
            case .uncovered: uncovered += 1
            case .equivalent: equivalent += 1
            case .error: errors += 1
            }
        }
    }

    /// Every mutant's verdict, counted.
    public var total: Tally { tally(mutants) }

    /// Per file and per operator, in name order.
    public var byFile: [(name: String, tally: Tally)] { grouped(by: \.file) }
    public var byOperator: [(name: String, tally: Tally)] { grouped(by: \.operator) }

    /// Declared equivalent, yet killed: declarations to remove.
    public var wronglyDeclared: [MutantResult] {
        mutants.filter { $0.verdict == .killed && $0.declaredEquivalent != nil }
    }

    private func tally(_ results: [MutantResult]) -> Tally {
        var tally = Tally()
        for result in results { tally.add(result.verdict) }
        return tally
    }

    private func grouped(by key: KeyPath<MutantResult, String>) -> [(name: String, tally: Tally)] {
        Dictionary(grouping: mutants, by: { $0[keyPath: key] }).map { ($0.key, tally($0.value)) }.sorted {
            $0.name < $1.name
        }
    }

    public init(
        package: String, target: String, product: String, configuration: String, subjects: [String],
        operators: [String], since: String?, seconds: Phases, baseline: [BaselinePair], notCompiled: [MutantResult],
        mutants: [MutantResult], environment: ReportEnvironment = .current(), generatedAt: String = ReportTime.now()
    ) {
        self.generatedAt = generatedAt
        self.environment = environment
        self.package = package
        self.target = target
        self.product = product
        self.configuration = configuration
        self.subjects = subjects
        self.operators = operators
        self.since = since
        self.seconds = seconds
        self.baseline = baseline
        self.notCompiled = notCompiled
        self.mutants = mutants
    }

    /// The report as JSON, keys sorted.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The terminal table: the score, per operator and per file, then every survivor with
    /// where it is, what it changes and which rules ran.
    public func table() -> String {
        var lines: [String] = []
        let total = self.total
        lines.append(
            String(
                format:
                    """
                    mutation score %.1f %% (%d killed of %d scored; %d survived, %d of them reached by no rule; %d \
                    declared equivalent; %d did not compile)
                    """,
                total.score, total.killed, total.mutants - total.equivalent - total.errors,
                total.survived + total.uncovered, total.uncovered, total.equivalent, notCompiled.count))
        for (title, groups) in [("operator", byOperator), ("file", byFile)] {
            lines.append("")
            let width = max(title.count, groups.map(\.name.count).max() ?? 0)
            lines.append(
                title.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "  mutants  killed  survived  uncovered  equivalent   score")
            for (name, tally) in groups {
                lines.append(
                    name.padding(toLength: width, withPad: " ", startingAt: 0)
                        + String(
                            format: "  %7d  %6d  %8d  %9d  %10d  %5.1f %%", tally.mutants, tally.killed, tally.survived,
                            tally.uncovered, tally.equivalent, tally.score))
            }
        }
        let trusted = mutants.filter { $0.verdict == .equivalent && $0.trials.isEmpty }.count
        if trusted > 0 {
            lines.append("")
            lines.append(
                """
                \(trusted) mutant(s) declared equivalent were not run again (--trust-equivalents): run without it to \
                check the declarations
                """
            )
        }
        let survivors = mutants.filter { $0.verdict == .survived || $0.verdict == .uncovered }
        if !survivors.isEmpty {
            lines.append("")
            lines.append("survivors (declare one equivalent, with a reason, only if no scheduler could tell):")
            for survivor in survivors {
                let ran =
                    survivor.verdict == .uncovered
                    ? "reached by no rule"
                    : "ran \(survivor.trials.count) rule(s): "
                        + survivor.trials.prefix(6).map { "\($0.rule)@\($0.subject)" }.joined(separator: ", ")
                        + (survivor.trials.count > 6 ? ", …" : "")
                lines.append(
                    """
                      #\(survivor.id) \(survivor.file):\(survivor.line):\(survivor.column) \(survivor.operator) in \
                    \(survivor.context): \(survivor.change); \(ran)
                    """
                )
            }
        }
        for wrong in wronglyDeclared {
            lines.append(
                """
                declared equivalent but killed by \(wrong.killedBy.map { "\($0.rule)@\($0.subject)" } ?? "a rule"): \
                #\(wrong.id) \(wrong.file):\(wrong.line) \(wrong.change); remove its declaration
                """
            )
        }
        return lines.joined(separator: "\n")
    }
}
