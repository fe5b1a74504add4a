import SchedulerVocabulary

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
    /// completed operations each time (recorded as `completed`), and reports the medians (a
    /// shared 2-core machine's outliers are one-sided) as the `unit`'s metrics and
    /// ``StressMetric/ratioToBaseline``; the allocation metrics with jemalloc only.
    func benchmark(
        unit: BenchmarkUnit, operations: Int, completed: some StressOutcome,
        _ round: () throws(StressFailure) -> BenchmarkRound
    ) throws(StressFailure) {
        var rounds: [BenchmarkRound] = []
        repeat {
            rounds.append(try round())
            record(completed, count: operations)
            addOperations(operations)
        } while !timeIsUp || rounds.count < 3
        let cost = median(rounds.map(\.nanoseconds))
        let baseline = median(rounds.map(\.baselineNanoseconds))
        setMetric(unit.nanoseconds, cost)
        setMetric(unit.baselineNanoseconds, baseline)
        setMetric(.ratioToBaseline, cost / baseline)
        setSamples(unit.nanoseconds, rounds.map(\.nanoseconds))
        setSamples(.ratioToBaseline, rounds.map { $0.nanoseconds / $0.baselineNanoseconds })
        let allocations = rounds.compactMap(\.allocations)
        let baselineAllocations = rounds.compactMap(\.baselineAllocations)
        if !allocations.isEmpty, !baselineAllocations.isEmpty {
            setMetric(unit.allocations, median(allocations))
            setMetric(unit.baselineAllocations, median(baselineAllocations))
            setMetric(unit.extraAllocations, median(allocations) - median(baselineAllocations))
        }
        let bytes = rounds.compactMap(\.bytes)
        if !bytes.isEmpty { setMetric(unit.bytes, median(bytes)) }
    }

    /// Runs `body`, which completes `count` operations (on any threads) before it returns,
    /// and gives nanoseconds and the whole process's allocation requests per operation
    /// (jemalloc only).
    func perOperation(_ count: Int, _ body: () throws(StressFailure) -> Void) throws(StressFailure) -> (
        Double, Double?
    ) {
        let before = Allocator.totalRequests()
        let started = ContinuousClock.now
        try body()
        let elapsed = (ContinuousClock.now - started).timeInterval * 1e9 / Double(count)
        let after = Allocator.totalRequests()
        return (elapsed, before.flatMap { before in after.map { Double($0 &- before) / Double(count) } })
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
