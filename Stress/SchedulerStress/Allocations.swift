import SchedulerVocabulary
import Synchronization

// Every raw C call of the stress runners sits in this file.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Allocation statistics from jemalloc, when the process runs on it.
///
/// The `stress` command starts its workers with jemalloc preloaded (when installed) and its
/// thread caches off (`MALLOC_CONF=tcache:false`): a per-thread cache would hide recent
/// allocations of other threads from the arena counters, so counts would lag. The benchmarks
/// keep the caches on (``StressScenario/isBenchmark``): over their many operations the lag
/// is lost in the rounding, and a timing must see the allocator as applications do. Without
/// jemalloc everything runs the same and reports `system` with no statistics; numbers from
/// different allocators are never comparable.
public enum Allocator {
    private typealias Mallctl =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int
        ) -> Int32

    private static let mallctl: Mallctl? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallctl") else { return nil }
        return unsafeBitCast(symbol, to: Mallctl.self)
    }()

    /// `jemalloc` when this process allocates through jemalloc, `system` otherwise.
    public static var name: String { mallctl == nil ? "system" : "jemalloc" }

    /// Cumulative allocation requests of the whole process (all threads, all size classes),
    /// or nil without jemalloc. The calling thread's cache is flushed first, so its own
    /// allocations are always counted; other threads' are exact only with caches off.
    public static func totalRequests() -> UInt64? {
        if let mallctl { _ = mallctl("thread.tcache.flush", nil, nil, nil, 0) }
        guard refresh() else { return nil }
        guard let small: UInt64 = read("stats.arenas.4096.small.nrequests"),
            let large: UInt64 = read("stats.arenas.4096.large.nrequests")
        else { return nil }
        return small + large
    }

    /// Bytes the calling thread has allocated since it started (exact, per thread), or nil.
    public static func threadAllocatedBytes() -> UInt64? { read("thread.allocated") }

    /// Bytes in live allocations of the whole process (`stats.allocated`), or nil without
    /// jemalloc. Exact across threads only with caches off; the calling thread's cache is
    /// flushed first.
    public static func liveBytes() -> UInt64? {
        if let mallctl { _ = mallctl("thread.tcache.flush", nil, nil, nil, 0) }
        guard refresh() else { return nil }
        let value: Int? = read("stats.allocated")
        return value.map { UInt64($0) }
    }

    /// Resident memory of the process in bytes, or nil without jemalloc.
    public static func residentBytes() -> UInt64? {
        guard refresh() else { return nil }
        let value: Int? = read("stats.resident")
        return value.map { UInt64($0) }
    }

    /// Whether thread caches are off, which exact cross-thread counts need.
    public static var threadCachesOff: Bool {
        let enabled: Bool? = read("opt.tcache")
        return enabled == false
    }

    /// Asks jemalloc to refresh its statistics snapshot.
    private static func refresh() -> Bool {
        guard let mallctl else { return false }
        var epoch: UInt64 = 1
        var size = MemoryLayout<UInt64>.size
        return withUnsafeMutablePointer(to: &epoch) { pointer in
            mallctl("epoch", pointer, &size, pointer, size) == 0
        }
    }

    private static func read<T: BitwiseCopyable>(_ name: String) -> T? {
        guard let mallctl else { return nil }
        return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer -> T? in
            var size = MemoryLayout<T>.size
            guard mallctl(name, buffer.baseAddress, &size, nil, 0) == 0, size == MemoryLayout<T>.size else {
                return nil
            }
            return buffer[0]
        }
    }
}

/// Allocation deltas over a run: requests of the whole process, bytes of the threads that
/// report their own (the scheduling threads).
final class AllocationCollector: Sendable {
    private let startRequests = Allocator.totalRequests()
    private let bytes = Atomic<UInt64>(0)

    /// Runs `body` on the calling thread and adds the bytes it allocated.
    func measuringBytes<T>(_ body: () throws -> T) rethrows -> T {
        let before = Allocator.threadAllocatedBytes()
        defer {
            if let before, let after = Allocator.threadAllocatedBytes() {
                bytes.wrappingAdd(after &- before, ordering: .relaxed)
            }
        }
        return try body()
    }

    /// The run's allocations per operation, or nil without jemalloc.
    func perOperation(_ operations: Int) -> AllocationStats? {
        guard let startRequests, let end = Allocator.totalRequests(), operations > 0 else { return nil }
        return AllocationStats(
            perOperation: Double(end &- startRequests) / Double(operations),
            bytesPerOperation: Double(bytes.load(ordering: .relaxed)) / Double(operations),
            residentBytes: Allocator.residentBytes()
        )
    }
}
