import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// A clock whose sleeps return at once, its time moved to the deadline (as swift-clocks'
/// `ImmediateClock`), correct unless given its fault.
final class FaultyImmediateClock: Clock {
    enum Fault: String, Sendable {
        case movesBack = "immediate-clock-moves-back"
    }

    typealias Instant = VirtualClock.Instant

    let fault: Fault?
    private let time = Lock(Instant(offset: .seconds(1_000)))

    init(_ fault: Fault?) { self.fault = fault }

    var now: Instant { time.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        time.withLock { $0 = fault == .movesBack ? deadline : max($0, deadline) }
    }

    /// The clock as the suite sees it.
    var underTest: ClockUnderTest { ClockUnderTest(immediate: self) }
}
