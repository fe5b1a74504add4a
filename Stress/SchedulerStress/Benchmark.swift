/// One round of a benchmark: the subject and its bare baseline, measured back to back so
/// both see the same machine.
struct BenchmarkRound {
    /// The subject's cost per operation.
    var nanoseconds: Double
    /// The baseline's cost per operation.
    var baselineNanoseconds: Double
    /// Allocation requests per operation of the subject and of the baseline (jemalloc only).
    var allocations: Double?
    var baselineAllocations: Double?
    /// Bytes the subject allocated per operation (jemalloc only).
    var bytes: Double? = nil
}

extension StressContext {
    /// Runs `round` until the budget is used, at least three times, counting `operations`
    /// completed operations each time, and reports the medians (a shared 2-core machine's
    /// outliers are one-sided) as `nanosecondsPer<unit>`, `baselineNanosecondsPer<unit>`,
    /// `ratioToBaseline`, and with jemalloc `allocationsPer<unit>`,
    /// `baselineAllocationsPer<unit>`, `extraAllocationsPer<unit>` and `bytesPer<unit>`.
    func benchmark(unit: String, operations: Int, _ round: () throws(StressFailure) -> BenchmarkRound) throws(StressFailure) {
        var rounds: [BenchmarkRound] = []
        repeat {
            rounds.append(try round())
            record("completed", count: operations)
            addOperations(operations)
        } while !timeIsUp || rounds.count < 3
        let cost = median(rounds.map(\.nanoseconds)), baseline = median(rounds.map(\.baselineNanoseconds))
        setMetric("nanosecondsPer\(unit)", cost)
        setMetric("baselineNanosecondsPer\(unit)", baseline)
        setMetric("ratioToBaseline", cost / baseline)
        setSamples("nanosecondsPer\(unit)", rounds.map(\.nanoseconds))
        setSamples("ratioToBaseline", rounds.map { $0.nanoseconds / $0.baselineNanoseconds })
        let allocations = rounds.compactMap(\.allocations), baselineAllocations = rounds.compactMap(\.baselineAllocations)
        if !allocations.isEmpty, !baselineAllocations.isEmpty {
            setMetric("allocationsPer\(unit)", median(allocations))
            setMetric("baselineAllocationsPer\(unit)", median(baselineAllocations))
            setMetric("extraAllocationsPer\(unit)", median(allocations) - median(baselineAllocations))
        }
        let bytes = rounds.compactMap(\.bytes)
        if !bytes.isEmpty { setMetric("bytesPer\(unit)", median(bytes)) }
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
