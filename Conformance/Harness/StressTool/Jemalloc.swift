import Foundation

/// Where jemalloc's shared library is, if installed: the stress tool preloads it into its
/// workers to count allocations.
enum JemallocLibrary {
    static let path: String? = {
        let folders = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
        return folders.map { $0 + "/libjemalloc.so.2" }.first { FileManager.default.fileExists(atPath: $0) }
    }()
}
