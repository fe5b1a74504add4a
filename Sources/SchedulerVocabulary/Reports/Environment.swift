import Foundation
import Schedulers

/// The machine, toolchain and code a report was made with: what a reader needs to trust
/// it, or to know two reports are not comparable. Conformance and stress reports share it
/// (`Reports/schema/common.schema.json`), so a new provenance field is one change here.
public struct ReportEnvironment: Codable, Sendable, Equatable {
    public var os: String
    public var cpuCount: Int
    public var swiftVersion: String
    /// `jemalloc` or `system`: stress reports always name the allocator their allocation
    /// numbers came from (numbers from different allocators are not comparable);
    /// conformance reports, which measure no allocation, never do.
    public var allocator: String?
    /// The CPU architecture (`x86_64`, `arm64`); absent from older reports.
    public var architecture: String?
    /// The git commit of the code that was checked (see ``Provenance/commit``); absent
    /// outside a git checkout and from older reports.
    public var commit: String?
    /// `thread` in `make tsan`'s build, whose timings are not comparable with others.
    public var sanitizer: String?

    /// This machine, toolchain and checkout, with `allocator` when allocations were measured.
    public static func current(allocator: String? = nil) -> ReportEnvironment {
        ReportEnvironment(
            os: ProcessInfo.processInfo.operatingSystemVersionString,
            cpuCount: ProcessInfo.processInfo.activeProcessorCount,
            swiftVersion: Provenance.compilerVersion,
            allocator: allocator,
            architecture: Provenance.architecture,
            commit: Provenance.commit,
            sanitizer: ThreadSanitizerBuild.isEnabled ? "thread" : nil
        )
    }
}

/// When reports were made: ISO 8601 in UTC with milliseconds, so that runs made within one
/// second (shards, a test's back-to-back runs) still sort in the order they were made.
public enum ReportTime {
    /// The current time as a report's `generatedAt`.
    public static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// The time in a report's `generatedAt`, with or without fractional seconds (older
    /// reports have none); nil when it is not such a time.
    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
