import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// A small manual clock whose sleepers run wherever the suite puts them (not inside its
/// advance), correct but for one fault: each on a call other than plain `sleep` meeting a
/// sleeper or a cancellation from another thread, in a window of a microsecond, for LIN-3's
/// generated scenarios to find unaided.
///
/// Its advance resumes sleepers without waiting for their tasks to run, so a task may read
/// `now` after the advance moved on: CLK-7's exact `now` is promised only by clocks whose
/// sleepers run on their own executor (or that yield between resumptions, as swift-clocks'
/// `TestClock` does), and this one is not among the controls.
final class RacyManualClock: Clock {
    enum Fault: String, Sendable, CaseIterable {
        case none = "racy-manual-clock"
        /// A sleep compares its deadline with `now` in one critical section and registers in
        /// another: an advance in between passes its deadline without seeing it.
        case sleepChecksThenRegisters = "manual-clock-sleep-checks-then-registers"
        /// An advance that finds nothing more due moves the time to its target in a critical
        /// section of its own: a sleeper registering in between, due by the target, is missed.
        case advanceMovesTimeLate = "manual-clock-advance-moves-time-late"
        /// Cancellation throws from a sleep that an advance already took (and moved the time
        /// to): the sleeper ends cancelled with the clock at its deadline.
        case cancelBeatsTakenWake = "manual-clock-cancel-beats-taken-wake"

        /// The fault in a few words, for the mutant list.
        var summary: String {
            switch self {
            case .none: "none"
            case .sleepChecksThenRegisters: "a sleep checks its deadline and registers in two critical sections"
            case .advanceMovesTimeLate: "an advance moves the time to its target in a critical section of its own"
            case .cancelBeatsTakenWake: "cancelling throws from a sleep an advance already took"
            }
        }
    }

    typealias Instant = VirtualClock.Instant

    private struct Registration {
        let id: Int
        let deadline: Instant
        let wake: Sleeper
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Registration] = []

        /// Registers a sleeper, unless its task is cancelled (checked under the lock the
        /// cancellation handler takes) or, when `checkingDeadline`, its deadline has passed.
        mutating func register(_ deadline: Instant, _ wake: Sleeper, checkingDeadline: Bool) -> SleepRegistration {
            if Task.isCancelled { return .cancelled }
            if checkingDeadline, deadline <= now { return .due }
            defer { nextID += 1 }
            sleepers.append(Registration(id: nextID, deadline: deadline, wake: wake))
            return .asleep
        }
    }

    let fault: Fault
    private let state = Lock(State())
    /// Drives from two threads take turns, as the reference's do: the faults are elsewhere.
    private let gate = DriveGate()

    init(_ fault: Fault) { self.fault = fault }

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let wake = Sleeper()
        try await withTaskCancellationHandler {
            // Registered inside the handler's scope, under the lock the handler takes, so a
            // cancel either came first (seen here) or finds the registration.
            let checksFirst = fault == .sleepChecksThenRegisters
            if checksFirst {
                guard deadline > now else { return }
                spin(.microseconds(1))
            }
            switch state.withLock({ $0.register(deadline, wake, checkingDeadline: !checksFirst) }) {
            case .due: return
            case .cancelled: throw CancellationError()
            case .asleep: break
            }
            try await withUnsafeThrowingContinuation { (continuation: Sleeper.Continuation) in
                wake.install(continuation)
            }
        } onCancel: {
            let withdrawn = state.withLock { state -> Bool in
                guard let index = state.sleepers.firstIndex(where: { $0.wake === wake }) else { return false }
                state.sleepers.remove(at: index)
                return true
            }
            if withdrawn || fault == .cancelBeatsTakenWake { wake.cancel() }
        }
    }

    /// Resumes every sleeper due by `now + duration`, earliest first, then sets the time there.
    func advance(by duration: Duration) {
        gate.drive {
            let target = state.withLock { $0.now.advanced(by: duration) }
            while let next = take(dueBy: target) { resume(next) }
        }
    }

    /// Resumes every sleeper, earliest first, until none is left.
    func run() {
        gate.drive {
            while let next = take(dueBy: nil) { resume(next) }
        }
    }

    private func resume(_ sleeper: Registration) {
        if fault == .cancelBeatsTakenWake { spin(.microseconds(1)) }
        sleeper.wake.resume()
    }

    /// Removes the earliest sleeper due by `target` (any, when nil) and moves the time to its
    /// deadline; with none due, moves the time to `target` in the same critical section, so
    /// no sleeper can register against the old time in between.
    private func take(dueBy target: Instant?) -> Registration? {
        let (taken, late) = state.withLock { state -> (Registration?, Instant?) in
            let earliest = state.sleepers.indices.min {
                (state.sleepers[$0].deadline, state.sleepers[$0].id) < (
                    state.sleepers[$1].deadline, state.sleepers[$1].id
                )
            }
            guard let earliest, target.map({ state.sleepers[earliest].deadline <= $0 }) ?? true else {
                guard let target else { return (nil, nil) }
                if fault == .advanceMovesTimeLate { return (nil, target) }
                state.now = max(state.now, target)
                return (nil, nil)
            }
            let sleeper = state.sleepers.remove(at: earliest)
            state.now = max(state.now, sleeper.deadline)
            return (sleeper, nil)
        }
        if let late {
            spin(.microseconds(1))
            state.withLock { $0.now = max($0.now, late) }
        }
        return taken
    }

    /// The clock as the suite sees it: advanced from plain code, its sleepers on the suite's executor.
    var underTest: ClockUnderTest {
        ClockUnderTest(self, blockingAdvance: { $0.advance(by: $1) }, blockingRun: { $0.run() })
    }
}
