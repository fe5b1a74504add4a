import ArgumentParser
import Foundation
import Schedulers

/// Where jemalloc's shared library is, if installed: the stress tool preloads it into its
/// workers to count allocations.
enum JemallocLibrary {
    /// Why jemalloc cannot be used at all in this build, if it cannot: ThreadSanitizer
    /// replaces the allocator itself, so a preloaded jemalloc would count nothing.
    static let unavailable: String? =
        ThreadSanitizerBuild.isEnabled ? "this is a ThreadSanitizer build, which brings its own allocator" : nil

    /// The installed library, or nil when there is none or this build cannot use it.
    static let path: String? = {
        guard unavailable == nil else { return nil }
        let folders = [
            "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
        ]
        return folders.map { $0 + "/libjemalloc.so.2" }.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// Checks an `--allocator` value: auto, jemalloc (only when it can be used) or system.
    static func validate(allocator: String) throws {
        guard ["auto", "jemalloc", "system"].contains(allocator) else {
            throw ValidationError("--allocator must be auto, jemalloc or system")
        }
        guard allocator == "jemalloc", path == nil else { return }
        throw ValidationError(
            "--allocator jemalloc, but "
                + (unavailable ?? "no libjemalloc.so.2 was found (apt-get install libjemalloc-dev)"))
    }
}
