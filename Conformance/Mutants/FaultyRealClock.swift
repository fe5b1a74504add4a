import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// A real clock on Dispatch's uptime clock, correct unless given a fault: sleeps are
/// Dispatch timers whose continuation is resumed once, by the timer or by cancellation.
final class FaultyRealClock: Clock {
    enum Fault: String, Sendable {
        case perThreadSkew = "clock-per-thread-skew"
        case roundsToMilliseconds = "clock-rounds-to-milliseconds"
        /// Rounds each sleep to the nearest millisecond: up to half a millisecond early.
        case roundsToNearestMillisecond = "clock-rounds-to-nearest-millisecond"
        /// Reads a tolerance as a window either side of the deadline, and wakes at its start.
        case toleranceWakesEarly = "clock-tolerance-wakes-early"
        case staleSleepFor = "clock-stale-sleep-for"
        case pastDeadlineWaits = "clock-past-deadline-waits"
        case parkedIgnoresCancellation = "clock-parked-ignores-cancellation"
        case wrappingInstants = "clock-wrapping-instants"
        case oversleeps = "clock-oversleeps"
        /// Looks at the deadline before cancellation: a cancelled task's sleep to a deadline
        /// already passed returns normally.
        case dueIgnoresCancellation = "clock-due-ignores-cancellation"
    }

    /// Uptime as a 128-bit duration; with the wrapping fault, its arithmetic wraps 64-bit
    /// nanoseconds as a careless clock's would.
    struct Instant: InstantProtocol {
        var offset: Duration
        var wraps = false

        func advanced(by duration: Duration) -> Instant {
            guard wraps else { return Instant(offset: offset + duration) }
            let nanoseconds =
                Int64(truncatingIfNeeded: offset.attoseconds / 1_000_000_000)
                &+ Int64(truncatingIfNeeded: duration.attoseconds / 1_000_000_000)
            return Instant(offset: .nanoseconds(nanoseconds), wraps: true)
        }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        static func == (lhs: Instant, rhs: Instant) -> Bool { lhs.offset == rhs.offset }
        func hash(into hasher: inout Hasher) { hasher.combine(offset) }
    }

    let fault: Fault?
    private let made: Instant
    /// Threads in the order they first read the clock; odd ones read 5 ms behind.
    private let readers = Lock<[UInt: Int]>([:])

    init(_ fault: Fault?) {
        self.fault = fault
        made = Instant(offset: .nanoseconds(DispatchTime.now().uptimeNanoseconds))
    }

    var now: Instant {
        var instant = Instant(
            offset: .nanoseconds(DispatchTime.now().uptimeNanoseconds), wraps: fault == .wrappingInstants)
        if fault == .perThreadSkew {
            let thread = ThreadProbe.id
            let order = readers.withLock { readers in
                if let order = readers[thread] { return order }
                readers[thread] = readers.count
                return readers.count - 1
            }
            if order % 2 == 1 { instant.offset -= .milliseconds(5) }
        }
        return instant
    }

    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if fault != .dueIgnoresCancellation { try Task.checkCancellation() }
        var remaining = now.duration(to: deadline)
        switch fault {
        case .roundsToMilliseconds: remaining = .milliseconds(remaining.attoseconds / 1_000_000_000_000_000)
        case .roundsToNearestMillisecond:
            remaining = .milliseconds((remaining.attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000)
        case .toleranceWakesEarly: remaining -= tolerance ?? .zero
        case .pastDeadlineWaits: remaining = remaining < .zero ? .zero - remaining : remaining
        case .oversleeps: remaining += .milliseconds(400)
        default: break
        }
        guard remaining > .zero else { return }
        if fault == .dueIgnoresCancellation { try Task.checkCancellation() }
        let wake = Sleeper()
        let nanoseconds = Int((try? remaining.checkedNanoseconds()) ?? Int64(Int.max))
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: Sleeper.Continuation) in
                // Not revocable: a cancel ends the sleep, and the wake-up, when it comes,
                // finds it ended.
                wake.install(continuation)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { wake.resume() }
            }
        } onCancel: {
            if fault != .parkedIgnoresCancellation { wake.cancel() }
        }
    }

    /// `sleep(for:)` of its own, as a clock type may have; with the stale fault it measures
    /// from when the clock was made.
    func sleepFor(_ duration: Duration) async throws {
        try await sleep(until: (fault == .staleSleepFor ? made : now).advanced(by: duration))
    }
}

extension FaultyRealClock {
    /// The clock as the suite sees it, its own `sleep(for:)` included.
    var underTest: ClockUnderTest {
        ClockUnderTest(self, sleepFor: { try await $0.sleepFor($1) })
    }
}
