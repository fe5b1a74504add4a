import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// A manual (test) clock written from scratch, correct unless given a fault: a list of
/// sleepers, resumed one at a time by `advance`, each followed by the jobs it made ready
/// (sleeping tasks run on the executor of a test scheduler used only to run jobs).
final class FaultyManualClock: Clock {
    enum Fault: String, Sendable {
        case earlyByOne = "manual-clock-early-by-one"
        case sleepForFromOrigin = "manual-clock-sleep-for-from-origin"
        case dueWaits = "manual-clock-due-waits"
        case ignoresCancellation = "manual-clock-ignores-cancellation"
        case nowIsTarget = "manual-clock-now-is-target"
        case registrationOrder = "manual-clock-registration-order"
        case tiesLIFO = "manual-clock-ties-lifo"
        /// Keeps its list sorted as it registers: a sleeper due no later than the first goes to
        /// the front (`<=` where `<` was meant), so ties with no earlier sleeper before them
        /// resume last-in first; a cancellation re-sorts the list by registration, hiding it.
        case tiesLIFOAtTheFront = "manual-clock-ties-lifo-at-the-front"
        /// Appends a sleeper due no earlier than its last one, and inserts any other before
        /// its equals: ties registered behind a later sleeper resume last-in first.
        case tiesLIFOInTheMiddle = "manual-clock-ties-lifo-in-the-middle"
        case keepsCancelled = "manual-clock-keeps-cancelled"
        case runSnapshot = "manual-clock-run-snapshot"
        case deregistersByDeadline = "manual-clock-deregisters-by-deadline"
        case cancelSwapRemoves = "manual-clock-cancel-swap-removes"
        /// Deadlines are kept as whole nanoseconds, truncated: one a fraction past a
        /// nanosecond is due a fraction early.
        case truncatesToNanoseconds = "manual-clock-truncates-to-nanoseconds"
        /// Deadlines are kept as whole microseconds, rounded up, though it claims a
        /// nanosecond's resolution: a sleeper is resumed up to a microsecond late.
        case roundsUpToMicroseconds = "manual-clock-rounds-up-to-microseconds"
        /// A deadline within its first tick counts as the origin (a clamp of pre-origin
        /// deadlines off by one), so it is due before time moves.
        case firstTickIsOrigin = "manual-clock-first-tick-is-origin"
        /// As ``dueWaits``, with its sleepers on the suite's executor, so that nothing but an
        /// advance (not even a settling one) resumes a due sleep.
        case dueWaitsOffItsExecutor = "manual-clock-due-waits-off-its-executor"
        /// Deadlines are kept as signed 64-bit nanosecond counts whose largest value means
        /// "never", so a deadline at exactly the last nanosecond never comes.
        case lastNanosecondIsNever = "manual-clock-last-nanosecond-is-never"
        /// Checks for a cancel only as the sleep begins, not again under the lock it registers
        /// the sleeper under: a cancel in between finds nothing to withdraw, and the sleeper,
        /// registered after it, sleeps on until its deadline.
        case checksCancelOnlyOnEntry = "manual-clock-checks-cancel-only-on-entry"
        /// Has no drive gate: advances and runs from two threads go side by side, each
        /// advancing from the time it read as it began.
        case drivesOverlap = "manual-clock-drives-overlap"
        /// Keeps drives one at a time, but `advance(by:)` reads the time it advances from
        /// before it takes its turn: behind another thread's drive, it sets its target from
        /// the time that drive left behind.
        case targetBeforeGate = "manual-clock-target-before-gate"
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
    }

    let fault: Fault?
    /// Runs the sleeping tasks' jobs; its own time never moves.
    let jobs = TestScheduler(name: "manual clock jobs")
    private let state = Lock(State())
    /// Drives from two threads take turns, as the reference's do: the faults are elsewhere.
    private let gate = DriveGate()

    init(_ fault: Fault?) { self.fault = fault }

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let deadline = Self.stored(deadline, fault)
        let dueWaits = fault == .dueWaits || fault == .dueWaitsOffItsExecutor
        let wake = Sleeper()
        try await withTaskCancellationHandler {
            // Registered inside the handler's scope and under the lock the handler takes: a
            // cancel either came first (seen here) or finds the registration. Registered
            // before the scope, a cancel in between would run the handler only on entry,
            // after an advance may have taken the sleeper: a sleep cancelled before the
            // advance began would then return normally (LIN-3 caught it under TSan). The
            // deadline is compared with `now` in the same critical section, so no advance
            // can pass it in between.
            let registration = state.withLock { state -> SleepRegistration in
                if fault != .checksCancelOnlyOnEntry, Task.isCancelled { return .cancelled }
                if dueWaits ? deadline < state.now : deadline <= state.now { return .due }
                defer { state.nextID += 1 }
                let registration = Registration(id: state.nextID, deadline: deadline, wake: wake)
                state.sleepers.insert(registration, at: place(of: deadline, in: state.sleepers))
                return .asleep
            }
            switch registration {
            case .due: return
            case .cancelled: throw CancellationError()
            case .asleep: break
            }
            try await withUnsafeThrowingContinuation { (continuation: Sleeper.Continuation) in
                wake.install(continuation)
            }
        } onCancel: {
            guard fault != .ignoresCancellation else { return }
            let withdrawn = state.withLock { state -> Bool in
                switch fault {
                case .keepsCancelled: return true
                // Finds the sleeper by its deadline: with ties, the first one registered goes.
                case .deregistersByDeadline:
                    state.sleepers.firstIndex { $0.deadline == deadline }.map { _ = state.sleepers.remove(at: $0) }
                    return true
                // O(1) removal: the last sleeper fills the hole, so the list leaves registration order.
                case .cancelSwapRemoves:
                    guard let index = state.sleepers.firstIndex(where: { $0.wake === wake }) else { return false }
                    state.sleepers.swapAt(index, state.sleepers.count - 1)
                    state.sleepers.removeLast()
                    return true
                default:
                    guard let index = state.sleepers.firstIndex(where: { $0.wake === wake }) else { return false }
                    state.sleepers.remove(at: index)
                    if fault == .tiesLIFOAtTheFront {
                        state.sleepers.sort { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
                    }
                    return true
                }
            }
            // A sleeper an advance already took is resumed by it: the clock decided first.
            if withdrawn { wake.cancel() }
        }
    }

    /// Where a sleeper due at `deadline` joins `sleepers`: at the end (registration order),
    /// or, for the faults that keep the list sorted, where each fault's sorting puts it.
    private func place(of deadline: Instant, in sleepers: [Registration]) -> Int {
        let afterEquals = sleepers.lastIndex { $0.deadline <= deadline }.map { $0 + 1 } ?? 0
        switch fault {
        case .tiesLIFOAtTheFront:
            return sleepers.first.map { deadline <= $0.deadline } ?? true ? 0 : afterEquals
        case .tiesLIFOInTheMiddle:
            let appends = sleepers.last.map { deadline >= $0.deadline } ?? true
            return appends ? sleepers.count : sleepers.firstIndex { $0.deadline >= deadline } ?? sleepers.count
        default:
            return sleepers.count
        }
    }

    /// The deadline as the clock keeps it, with the fault's rounding.
    private static func stored(_ deadline: Instant, _ fault: Fault?) -> Instant {
        let nanosecond: Int128 = 1_000_000_000
        let attoseconds = deadline.offset.attoseconds
        switch fault {
        case .earlyByOne: return deadline.advanced(by: .nanoseconds(-1))
        case .truncatesToNanoseconds:
            return Instant(offset: Duration(attoseconds: attoseconds / nanosecond * nanosecond))
        case .roundsUpToMicroseconds:
            let microsecond = nanosecond * 1_000
            return Instant(offset: Duration(attoseconds: (attoseconds + microsecond - 1) / microsecond * microsecond))
        case .firstTickIsOrigin: return deadline.offset <= .nanoseconds(1) ? Instant(offset: .zero) : deadline
        case .lastNanosecondIsNever:
            return deadline.offset >= .nanoseconds(Int64.max) ? Instant(offset: .seconds(Int64.max)) : deadline
        default: return deadline
        }
    }

    func sleepFor(_ duration: Duration) async throws {
        try await sleep(until: (fault == .sleepForFromOrigin ? Instant(offset: .zero) : now).advanced(by: duration))
    }

    func advance(by duration: Duration) {
        switch fault {
        case .drivesOverlap: advance(to: now.advanced(by: duration))
        case .targetBeforeGate:
            let target = now.advanced(by: duration)
            gate.drive { advance(to: target) }
        default: gate.drive { advance(to: now.advanced(by: duration)) }
        }
    }

    private func advance(to target: Instant) {
        while let next = popDue(notAfter: target) {
            next.wake.resume()
            jobs.advance(to: jobs.now)
        }
        state.withLock { $0.now = max($0.now, target) }
        jobs.advance(to: jobs.now)
    }

    /// The next sleeper to resume by the clock's policy, removed, with time moved to it; due
    /// by `target`, or (nil) by the earliest deadline of those `eligible`, found in the same
    /// critical section, so a sleeper cancelled meanwhile cannot leave its deadline behind.
    private func popDue(
        notAfter target: Instant?, among eligible: (Registration) -> Bool = { _ in true }
    ) -> Registration? {
        state.withLock { state in
            let advancing = target
            guard let target = target ?? state.sleepers.filter(eligible).map(\.deadline).min() else { return nil }
            let due = state.sleepers.indices.filter {
                state.sleepers[$0].deadline <= target && eligible(state.sleepers[$0])
            }
            let chosen: Int? =
                switch fault {
                case .registrationOrder: due.min { state.sleepers[$0].id < state.sleepers[$1].id }
                case .tiesLIFO:
                    due.min {
                        (state.sleepers[$0].deadline, -state.sleepers[$0].id) < (
                            state.sleepers[$1].deadline, -state.sleepers[$1].id
                        )
                    }
                // Trusts the list to be in registration order: the first of the earliest deadlines.
                case .cancelSwapRemoves, .tiesLIFOAtTheFront, .tiesLIFOInTheMiddle:
                    due.min { state.sleepers[$0].deadline < state.sleepers[$1].deadline }
                default:
                    due.min {
                        (state.sleepers[$0].deadline, state.sleepers[$0].id) < (
                            state.sleepers[$1].deadline, state.sleepers[$1].id
                        )
                    }
                }
            guard let chosen else {
                // Nothing more due: the time moves to the target in the same critical
                // section, so no sleeper registers against the old time in between.
                if let advancing { state.now = max(state.now, advancing) }
                return nil
            }
            let sleeper = state.sleepers.remove(at: chosen)
            state.now = fault == .nowIsTarget ? max(state.now, target) : max(state.now, sleeper.deadline)
            return sleeper
        }
    }

    func run() {
        if fault == .drivesOverlap { return runAll() }
        gate.drive { runAll() }
    }

    private func runAll() {
        let snapshot = Set(state.withLock { $0.sleepers.map(\.id) })
        while let next = popDue(notAfter: nil, among: { self.fault != .runSnapshot || snapshot.contains($0.id) }) {
            next.wake.resume()
            jobs.advance(to: jobs.now)
        }
        jobs.advance(to: jobs.now)
    }

    /// The clock as the suite sees it, its own `sleep(for:)` and job executor included.
    var underTest: ClockUnderTest {
        ClockUnderTest(
            self, blockingAdvance: { $0.advance(by: $1) }, blockingRun: { $0.run() },
            sleepersRunOn: fault == .dueWaitsOffItsExecutor ? nil : jobs.executor,
            sleepFor: { try await $0.sleepFor($1) }
        )
    }
}

/// What a manual clock found as it registered a sleeper, in one critical section with the
/// registration: that the task was cancelled (checked under the lock its cancellation
/// handler takes), that the deadline had come, or neither, and the sleeper is asleep.
enum SleepRegistration {
    case asleep, due, cancelled
}
