import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

/// `--rule` and `--category`: which rules to run.
struct RuleSelection: ParsableArguments {
    @Option(name: .customLong("rule"), help: "Only these rule IDs, e.g. ORD-1 (repeatable or comma-separated).")
    var rules: [String] = []

    @Option(name: .customLong("category"), help: "Only these categories, by prefix (ORD) or name (ordering).")
    var categories: [String] = []

    func validate() throws {
        for id in try nonEmptyList(rules, option: "--rule") where RuleID(rawValue: id) == nil {
            throw ValidationError("unknown rule '\(id)'; `list-rules` lists them")
        }
        for name in try nonEmptyList(categories, option: "--category") where Self.category(named: name) == nil {
            throw ValidationError(
                """
                unknown category '\(name)'; use one of \(Rule.Category.allCases.map(\.rawValue).joined(separator: ", "))
                """
            )
        }
    }

    /// The selected rules in catalogue order; all of them when nothing is selected.
    var selected: [Rule] {
        let ids = Set(splitList(rules).compactMap(RuleID.init(rawValue:)))
        let categories = Set(splitList(categories).compactMap(Self.category(named:)))
        return RuleCatalogue.all.filter { rule in
            (ids.isEmpty || ids.contains(rule.id))
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

    @Option(
        help: ArgumentHelp(
            """
            GiB of resident memory a worker may reach before the rule it runs is stopped with an error (default: half \
            the machine's).
            """,
            valueName: "GiB"))
    var workerMemory: Double?

    func validate() throws {
        if let workerMemory, !(workerMemory.isFinite && workerMemory > 0) {
            throw ValidationError("--worker-memory must be a positive number of GiB, got \(workerMemory)")
        }
    }

    /// The cap on a worker's resident memory, in bytes.
    var memoryCap: UInt64 {
        workerMemory.map { UInt64($0 * Double(1 << 30)) } ?? WorkerProcess.defaultMemoryCap
    }
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

/// How long the model-checked (LIN) rules explore, and from which seed.
struct ExplorationOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Seconds each model-checked (LIN) rule explores per subject at least (default 0.5, and on until its \
            evidence came); more finds rarer races.
            """,
            valueName: "seconds"))
    var budget: Double?

    @Option(help: "The first scenario's seed for the model-checked rules (default: drawn, and printed on a failure).")
    var seed: UInt64?

    func validate() throws {
        if let budget, !(budget.isFinite && budget > 0 && budget <= 86_400) {
            throw ValidationError("--budget must be a number of seconds above 0 and at most 86400, got \(budget)")
        }
    }

    /// The exploration these options ask for.
    var exploration: Exploration {
        var exploration = Exploration.standard
        if let budget { exploration.budget = .nanoseconds(Int64(budget * 1e9)) }
        exploration.seed = seed
        return exploration
    }

    /// `timing` with a rule timeout long enough for a `--budget` given: a loaded machine
    /// explores on for up to ten budgets, and a failure's shrinking takes one more. Without
    /// one, the standard budget fits the standard timeout, and a `--rule-timeout` stands.
    func timing(_ timing: Timing) -> Timing {
        guard budget != nil else { return timing }
        var timing = timing
        timing.ruleTimeout = max(
            timing.ruleTimeout,
            max(Exploration.evidenceCap, exploration.budget * 10) + exploration.budget * 2 + .seconds(30))
        return timing
    }
}
