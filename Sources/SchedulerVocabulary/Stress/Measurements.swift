/// Latency percentiles of a run, in nanoseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
    /// How many samples were recorded.
    public var count: UInt64
    /// Samples beyond the histogram's range (an hour): counted here, not dropped silently.
    public var outOfRange: UInt64
    /// The samples in buckets that double in width from 64 ns (up to 63 ns, 127 ns, 255 ns,
    /// …, each bound inclusive), up to the largest; absent from older reports. (The
    /// histogram library starts its iteration one unit below the first bucket's width.)
    public var histogram: [LatencyBucket]?

    /// A summary of `count` samples.
    public init(
        p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64, count: UInt64, outOfRange: UInt64,
        histogram: [LatencyBucket]?
    ) {
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.count = count
        self.outOfRange = outOfRange
        self.histogram = histogram
    }
}

/// The samples of one histogram bucket.
public struct LatencyBucket: Codable, Sendable, Equatable {
    /// The bucket's upper bound, in nanoseconds (inclusive).
    public var upToNanoseconds: UInt64
    public var count: UInt64

    /// `count` samples up to `upToNanoseconds`.
    public init(upToNanoseconds: UInt64, count: UInt64) {
        self.upToNanoseconds = upToNanoseconds
        self.count = count
    }
}

/// Allocations per operation, as the report holds them.
public struct AllocationStats: Codable, Sendable, Equatable {
    /// Allocation requests of the whole process per operation.
    public var perOperation: Double
    /// Bytes allocated by the scheduling threads per operation.
    public var bytesPerOperation: Double
    /// Resident memory at the end of the run.
    public var residentBytes: UInt64?

    /// Allocations and bytes per operation, and the resident memory at the end.
    public init(perOperation: Double, bytesPerOperation: Double, residentBytes: UInt64?) {
        self.perOperation = perOperation
        self.bytesPerOperation = bytesPerOperation
        self.residentBytes = residentBytes
    }
}
