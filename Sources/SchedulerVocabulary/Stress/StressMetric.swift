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

    /// The subject's cost per unit divided by its bare baseline's (``BareBaseline``) in the
    /// same rounds.
    public static let ratioToBaseline = StressMetric(rawValue: "ratioToBaseline")
    /// How far the stack grew over a recursive chain, in bytes.
    public static let maxStackGrowthBytes = StressMetric(rawValue: "maxStackGrowthBytes")
    /// The cost of one step of a recursive schedule.
    public static let recursionNanosecondsPerStep = StressMetric(rawValue: "recursionNanosecondsPerStep")

    /// k in time ∝ nᵏ for the `growth` scenario's workload (its curve is the run's `growth`).
    public static let growthExponent = StressMetric(rawValue: "growthExponent")

    /// Bytes the live heap's floor grew per 10⁶ actions over a soak's second half.
    public static let heapGrowthBytesPerMillionActions = StressMetric(rawValue: "heapGrowthBytesPerMillionActions")
    /// The same for resident memory.
    public static let residentGrowthBytesPerMillionActions = StressMetric(
        rawValue: "residentGrowthBytesPerMillionActions")

    /// Every metric, in the order the schema lists them.
    public static let all: [StressMetric] =
        [
            ratioToBaseline, maxStackGrowthBytes, recursionNanosecondsPerStep, growthExponent,
            heapGrowthBytesPerMillionActions, residentGrowthBytesPerMillionActions,
        ]
        + BenchmarkUnit.allCases.flatMap(\.metrics)
}

/// What a benchmark counts: a scheduler's actions, an executor's jobs or a clock's sleeps.
/// Each unit has its own family of metrics, spelt out so that no name is built from a string.
public enum BenchmarkUnit: Sendable, CaseIterable {
    case action, job, sleep

    /// The subject's median cost per unit.
    public var nanoseconds: StressMetric { metric("nanosecondsPerAction", "nanosecondsPerJob", "nanosecondsPerSleep") }
    /// The bare baseline's median cost per unit.
    public var baselineNanoseconds: StressMetric {
        metric("baselineNanosecondsPerAction", "baselineNanosecondsPerJob", "baselineNanosecondsPerSleep")
    }
    /// The subject's allocations per unit (jemalloc only).
    public var allocations: StressMetric { metric("allocationsPerAction", "allocationsPerJob", "allocationsPerSleep") }
    /// The baseline's allocations per unit (jemalloc only).
    public var baselineAllocations: StressMetric {
        metric("baselineAllocationsPerAction", "baselineAllocationsPerJob", "baselineAllocationsPerSleep")
    }
    /// The subject's allocations beyond the baseline's (jemalloc only).
    public var extraAllocations: StressMetric {
        metric("extraAllocationsPerAction", "extraAllocationsPerJob", "extraAllocationsPerSleep")
    }
    /// Bytes the subject allocated per unit (jemalloc only).
    public var bytes: StressMetric { metric("bytesPerAction", "bytesPerJob", "bytesPerSleep") }

    /// The unit's whole family.
    public var metrics: [StressMetric] {
        [nanoseconds, baselineNanoseconds, allocations, baselineAllocations, extraAllocations, bytes]
    }

    private func metric(_ action: String, _ job: String, _ sleep: String) -> StressMetric {
        switch self {
        case .action: StressMetric(rawValue: action)
        case .job: StressMetric(rawValue: job)
        case .sleep: StressMetric(rawValue: sleep)
        }
    }
}
