import Foundation
import SchedulerVocabulary

extension StressRun {
    /// Builds the run from what `context` collected while `scenario` ran.
    public init(scenario: StressScenario, context: StressContext, duration: Duration, failure: StressFailure?) {
        var outcomes: [String: OutcomeCount] = [:]
        let counts = context.outcomeCounts
        for outcome in scenario.outcomes {
            outcomes[outcome.name] = OutcomeCount(count: counts[outcome.name] ?? 0, expect: outcome.expect)
        }
        let metrics = context.metrics
        self.init(
            scenario: scenario.id, subject: context.subject.name, origin: context.subject.origin,
            threads: context.threads, seed: context.seed, operations: context.operations,
            durationSeconds: duration.timeInterval, outcomes: outcomes, status: .passed)
        self.latencyNanoseconds = context.latency.summary
        self.allocations = context.allocations.perOperation(context.operations)
        // The benchmarks count their subject's allocations themselves, apart from the baseline's.
        if let perOperation = BenchmarkUnit.allCases.lazy.compactMap({ metrics[$0.allocations] }).first {
            self.allocations?.perOperation = perOperation
        }
        if let bytes = metrics[BenchmarkUnit.action.bytes] { self.allocations?.bytesPerOperation = bytes }
        self.ratioToBaseline = metrics[.ratioToBaseline]
        self.baseline = scenario.isBenchmark ? context.subject.baseline : nil
        self.metrics = metrics
        let samples = context.samples
        self.samples = samples.isEmpty ? nil : samples
        self.growth = context.growth
        self.memory = context.memory
        let undeclared = Set(counts.keys).subtracting(scenario.outcomes.map(\.name))
        if !undeclared.isEmpty {
            // Counts the report has no place for must not vanish: the run is not judged.
            self.status = .error
            self.message =
                "the scenario recorded outcomes it does not declare: \(undeclared.sorted().joined(separator: ", "))"
        } else if let failure {
            // A run cut short after a forbidden outcome (work lost, so nothing left to wait
            // for) is the subject's failure; otherwise the run could not be judged.
            self.status = Self.judge(outcomes) == .failed ? .failed : failure.inconclusive ? .inconclusive : .error
            self.message = failure.description
        } else {
            self.status = Self.judge(outcomes)
            self.message =
                self.status == .failed
                ? "forbidden: "
                    + outcomes.filter { $0.value.expect == .forbidden && $0.value.count > 0 }.map {
                        "\($0.key) ×\($0.value.count)"
                    }.sorted().joined(separator: ", ") : nil
        }
    }

    /// A run that did not produce observations (skipped, timed out, crashed).
    public init(
        scenario: StressScenario, subject: ConformanceSubject, threads: Int, seed: UInt64, status: Status,
        message: String, durationSeconds: Double = 0, diagnostics: String? = nil
    ) {
        self.init(
            scenario: scenario.id, subject: subject.name, origin: subject.origin, threads: threads, seed: seed,
            operations: 0, durationSeconds: durationSeconds,
            outcomes: Dictionary(
                uniqueKeysWithValues: scenario.outcomes.map { ($0.name, OutcomeCount(count: 0, expect: $0.expect)) }),
            status: status, message: message)
        self.diagnostics = diagnostics
    }
}

extension StressRun {
    /// How often `outcome` was observed, and how it is judged; nil when the run's scenario
    /// does not declare it.
    public subscript(_ outcome: some StressOutcome) -> OutcomeCount? { outcomes[outcome.rawValue] }
}
