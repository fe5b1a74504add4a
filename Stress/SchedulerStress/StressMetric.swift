/// A measurement a scenario reports beside its outcomes, by the name its report uses (a key
/// of `metrics` and `samples` in `Reports/schema/stress.schema.json`, which lists them too).
///
/// Every metric is declared here, so a misspelt one does not compile, and a new one is one
/// line here plus its name in the schema (a test keeps the two lists equal).
public struct StressMetric: RawRepresentable, Hashable, Sendable, Codable, CodingKeyRepresentable,
    CustomStringConvertible
{
    /// The name in reports.
    public let rawValue: String

    /// A metric by its name in a report; code names them by the static members below.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The subject's cost per action, divided by the bare `DispatchQueue.async`'s in the
    /// same rounds (per job, against a bare Dispatch executor, for executors).
    public static let ratioToBaseline = StressMetric(rawValue: "ratioToBaseline")
    /// How far the stack grew over a recursive chain, in bytes.
    public static let maxStackGrowthBytes = StressMetric(rawValue: "maxStackGrowthBytes")
    /// The cost of one step of a recursive schedule.
    public static let recursionNanosecondsPerStep = StressMetric(rawValue: "recursionNanosecondsPerStep")

    /// Every metric, in the order the schema lists them.
    public static let all: [StressMetric] =
        [ratioToBaseline, maxStackGrowthBytes, recursionNanosecondsPerStep]
        + BenchmarkUnit.allCases.flatMap(\.metrics)
}

/// What a benchmark counts: a scheduler's actions or an executor's jobs. Each unit has its
/// own family of metrics, spelt out so that no name is built from a string.
public enum BenchmarkUnit: Sendable, CaseIterable {
    case action, job

    /// The subject's median cost per unit.
    public var nanoseconds: StressMetric { metric("nanosecondsPerAction", "nanosecondsPerJob") }
    /// The bare baseline's median cost per unit.
    public var baselineNanoseconds: StressMetric { metric("baselineNanosecondsPerAction", "baselineNanosecondsPerJob") }
    /// The subject's allocations per unit (jemalloc only).
    public var allocations: StressMetric { metric("allocationsPerAction", "allocationsPerJob") }
    /// The baseline's allocations per unit (jemalloc only).
    public var baselineAllocations: StressMetric { metric("baselineAllocationsPerAction", "baselineAllocationsPerJob") }
    /// The subject's allocations beyond the baseline's (jemalloc only).
    public var extraAllocations: StressMetric { metric("extraAllocationsPerAction", "extraAllocationsPerJob") }
    /// Bytes the subject allocated per unit (jemalloc only).
    public var bytes: StressMetric { metric("bytesPerAction", "bytesPerJob") }

    /// The unit's whole family.
    public var metrics: [StressMetric] {
        [nanoseconds, baselineNanoseconds, allocations, baselineAllocations, extraAllocations, bytes]
    }

    private func metric(_ action: String, _ job: String) -> StressMetric {
        StressMetric(rawValue: self == .action ? action : job)
    }
}
