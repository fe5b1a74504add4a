import SchedulerProbes
import Synchronization

/// A spin barrier without locks, so that the threads leave it together.
final class Barrier: Sendable {
    private let arrived = Atomic<Int>(0)

    /// A barrier no thread has reached.
    init() {}

    /// Waits, spinning, until `count` threads have arrived.
    func arrive(of count: Int) {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < count {}
    }
}
