import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// A region a profiler counts on its own: `body` runs inside a C function of that name, which
/// callgrind can be told to zero its counts before and dump them after (`--zero-before`,
/// `--dump-after`), so a program's start-up and tear-down stay out of the count.
package enum MeasuredRegion {
    /// The C function the region runs in.
    package static let symbol = "core_affinity_measured_region"

    /// Runs `body` inside the region.
    package static func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            let box = Unmanaged.passRetained(Box(body))
            defer { box.release() }
            core_affinity_measured_region(
                { context in Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue().body() }, box.toOpaque())
        }
    }

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
