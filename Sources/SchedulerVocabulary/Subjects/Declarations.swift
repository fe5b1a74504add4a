/// The choices SEMANTICS.md §8 leaves open, as a subject made them. The suite judges by its
/// own choice (each property's default); a subject that made another declares it, and the
/// rules that touch the choice then hold the subject to what it declared instead of failing
/// it. A difference declared is a difference; one undeclared fails, and the failure's
/// message names the declaration that would explain it, so an author can tell a bug from a
/// choice.
///
/// ```swift
/// ConformanceSubject(name: "test-clock", clock: { ClockUnderTest(TestClock()) })
///     .declaring(.dueSleep(.parksUntilNextAdvance))
/// ```
public struct Declarations: Sendable, Equatable {
    /// What the subject's schedulers do with work still pending when their last reference
    /// goes; nil accepts either, as long as nothing runs twice (THR-2).
    public var pendingWorkOnRelease: PendingWorkOnRelease?
    /// What a manual clock does with a sleep whose deadline is exactly `now` (CLK-4, LIN-3).
    public var dueSleep: DueSleep = .returnsAtOnce
    /// Where a real-time repeating timer puts its ticks when actions run long (TIM-6, TIM-12).
    public var repeatPolicy: RepeatPolicy = .grid
    /// What a real-time repeating timer does with the ticks a stall made it miss (TIM-16).
    public var missedTicks: MissedTicks = .coalesced
    /// Where a driven (virtual) executor runs its jobs (EXE-9).
    public var drivenJobs: DrivenJobs = .onTheDrivingThread
    /// What a repeating timer with a zero interval is (TIM-7).
    public var zeroInterval: ZeroInterval = .refused
    /// The order a serial executor runs jobs of different priorities queued together (EXE-3).
    public var executorOrder: ExecutorOrder = .fifo
    /// Where a serial executor queues a job enqueued from inside one of its jobs (EXE-3, LIN-4).
    public var nestedJobs: NestedJobs = .behindWaitingJobs
    /// Whether a virtual-time scheduler's advance runs the work due exactly at its target
    /// (VT-6, LIN-2).
    public var advanceTarget: AdvanceTarget = .inclusive
    /// Whether a virtual-time scheduler or a manual clock may be driven from several threads
    /// at once (LIN-2, LIN-3).
    public var drivenFrom: DrivenFrom = .anyThread
    /// What a main-thread scheduler's `schedule(_:)` does when called on the main thread with
    /// nothing of its own queued (ORD-5).
    public var mainThreadSchedule: MainThreadSchedule = .alwaysAsynchronous

    /// The suite's own choices throughout.
    public init() {}

    /// The declared choices that differ from the suite's, each as its declaration reads.
    public var differences: [Declaration] {
        var found: [Declaration] = []
        if let policy = pendingWorkOnRelease { found.append(.pendingWorkOnRelease(policy)) }
        if dueSleep != .returnsAtOnce { found.append(.dueSleep(dueSleep)) }
        if repeatPolicy != .grid { found.append(.repeatPolicy(repeatPolicy)) }
        if missedTicks != .coalesced { found.append(.missedTicks(missedTicks)) }
        if drivenJobs != .onTheDrivingThread { found.append(.drivenJobs(drivenJobs)) }
        if zeroInterval != .refused { found.append(.zeroInterval(zeroInterval)) }
        if executorOrder != .fifo { found.append(.executorOrder(executorOrder)) }
        if nestedJobs != .behindWaitingJobs { found.append(.nestedJobs(nestedJobs)) }
        if advanceTarget != .inclusive { found.append(.advanceTarget(advanceTarget)) }
        if drivenFrom != .anyThread { found.append(.drivenFrom(drivenFrom)) }
        if mainThreadSchedule != .alwaysAsynchronous { found.append(.mainThreadSchedule(mainThreadSchedule)) }
        return found
    }

    fileprivate mutating func apply(_ declaration: Declaration) {
        switch declaration {
        case .pendingWorkOnRelease(let policy): pendingWorkOnRelease = policy
        case .dueSleep(let choice): dueSleep = choice
        case .repeatPolicy(let policy): repeatPolicy = policy
        case .missedTicks(let choice): missedTicks = choice
        case .drivenJobs(let place): drivenJobs = place
        case .zeroInterval(let meaning): zeroInterval = meaning
        case .executorOrder(let order): executorOrder = order
        case .nestedJobs(let place): nestedJobs = place
        case .advanceTarget(let target): advanceTarget = target
        case .drivenFrom(let threads): drivenFrom = threads
        case .mainThreadSchedule(let choice): mainThreadSchedule = choice
        }
    }
}

/// One choice a subject declares (see ``Declarations``).
public enum Declaration: Sendable, Equatable, CustomStringConvertible {
    /// What happens to work pending when the scheduler is released.
    case pendingWorkOnRelease(PendingWorkOnRelease)
    /// What a manual clock does with a sleep until exactly `now`.
    case dueSleep(DueSleep)
    /// Where a real-time repeating timer's ticks fall.
    case repeatPolicy(RepeatPolicy)
    /// What a repeating timer does with the ticks a stall made it miss.
    case missedTicks(MissedTicks)
    /// Where a driven executor runs its jobs.
    case drivenJobs(DrivenJobs)
    /// What a zero repeat interval means.
    case zeroInterval(ZeroInterval)
    /// The order of a serial executor's queued jobs.
    case executorOrder(ExecutorOrder)
    /// Where a serial executor queues a job enqueued from inside one of its jobs.
    case nestedJobs(NestedJobs)
    /// Whether an advance runs what is due exactly at its target.
    case advanceTarget(AdvanceTarget)
    /// Whether a virtual-time scheduler or a manual clock may be driven from several threads
    /// at once.
    case drivenFrom(DrivenFrom)
    /// Whether `schedule` on the main thread may run inline when nothing is queued.
    case mainThreadSchedule(MainThreadSchedule)

    /// The declaration as an adapter writes it, in messages: the code
    /// `.declaring(.dueSleep(.parksUntilNextAdvance))`, in backticks.
    public var description: String { "`.declaring(\(code))`" }

    /// The declaration's own code, as reports list it: `.dueSleep(.parksUntilNextAdvance)`.
    public var code: String {
        switch self {
        case .pendingWorkOnRelease(let policy): ".pendingWorkOnRelease(.\(policy.rawValue))"
        case .dueSleep(let choice): ".dueSleep(.\(choice.rawValue))"
        case .repeatPolicy(let policy): ".repeatPolicy(.\(policy.rawValue))"
        case .missedTicks(let choice): ".missedTicks(.\(choice.rawValue))"
        case .drivenJobs(let place): ".drivenJobs(.\(place.rawValue))"
        case .zeroInterval(let meaning): ".zeroInterval(.\(meaning.rawValue))"
        case .executorOrder(let order): ".executorOrder(.\(order.rawValue))"
        case .nestedJobs(let place): ".nestedJobs(.\(place.rawValue))"
        case .advanceTarget(let target): ".advanceTarget(.\(target.rawValue))"
        case .drivenFrom(let threads): ".drivenFrom(.\(threads.rawValue))"
        case .mainThreadSchedule(let choice): ".mainThreadSchedule(.\(choice.rawValue))"
        }
    }
}

extension ConformanceSubject {
    /// This subject, with `declarations` made: each replaces an earlier one of its kind.
    public func declaring(_ declarations: Declaration...) -> ConformanceSubject {
        var subject = self
        for declaration in declarations { subject.declared.apply(declaration) }
        return subject
    }
}

/// What a scheduler does with work still pending when its last reference goes.
public enum PendingWorkOnRelease: String, Sendable, Codable, CaseIterable {
    /// Every pending action still runs, once: a Dispatch queue keeps itself alive while it
    /// has work, and so do this package's queue schedulers.
    case runs
    /// No pending action runs after the release: the scheduler cancels its work as it goes
    /// (a pool shut down on release, a virtual scheduler nobody drives any more).
    case dropped
}

/// What a manual clock does with `sleep(until: now)`.
public enum DueSleep: String, Sendable, Codable, CaseIterable {
    /// Returns at once, as for any deadline already passed (the suite's choice, and
    /// `ContinuousClock`'s).
    case returnsAtOnce
    /// Parks the sleeper until the next advance, even one by zero; a deadline strictly
    /// before `now` still returns at once (swift-clocks' `TestClock`, by design).
    case parksUntilNextAdvance
}

/// Where a real-time repeating timer's ticks fall when its actions run long.
public enum RepeatPolicy: String, Sendable, Codable, CaseIterable {
    /// Anchored at the start: tick k is due at start + k × interval whatever the actions'
    /// length, missed ticks coalesced into one (GCD timer sources; the suite's choice).
    case grid
    /// A fixed delay: each tick is due an interval after the previous action returned, so
    /// the period is the interval plus the action's length (SwiftNIO's
    /// `scheduleRepeatedTask`).
    case fixedDelay
}

/// What a real-time repeating timer on the grid does with the ticks it missed while a stall
/// (a long action, a blocked queue) outlasted its period.
public enum MissedTicks: String, Sendable, Codable, CaseIterable {
    /// One run for all of them, then the grid again (GCD timer sources, Foundation's `Timer`;
    /// the suite's choice).
    case coalesced
    /// One run for each, back to back, until the timer has caught up (tokio's default).
    case burst
    /// None of them runs: the next tick is the next grid point after the stall (Foundation's
    /// `Timer` on Linux when its own action stalled; tokio's `Skip`).
    case skipped
}

/// Where an executor that runs only when driven runs the jobs a drive releases.
public enum DrivenJobs: String, Sendable, Codable, CaseIterable {
    /// On the thread that drives it, inside the drive (the suite's choice, and this
    /// package's `TestScheduler` executor's).
    case onTheDrivingThread
    /// On a thread of its own, one job at a time, all of them done before the drive returns
    /// (SwiftNIO's `NIOAsyncTestingEventLoop`, whose jobs run on its private queue).
    case onItsOwnThread
}

/// What `schedule(at:repeatingEvery: .zero, …)` means. A negative interval is refused
/// whatever the declaration.
public enum ZeroInterval: String, Sendable, Codable, CaseIterable {
    /// Invalid input, refused with `SchedulerError.invalidInterval` and nothing changed (the
    /// suite's choice).
    case refused
    /// A timer that ticks again as soon as it can, until disposed.
    case asFastAsPossible
}

/// The order in which a serial executor runs jobs queued together.
public enum ExecutorOrder: String, Sendable, Codable, CaseIterable {
    /// The order they were enqueued in, whatever their priority (a Dispatch serial queue's
    /// contract; the suite's choice).
    case fifo
    /// The highest priority first, FIFO among equal priorities (default actors).
    case priority
}

/// Where a serial executor queues a job that one of its own jobs enqueues. Swift's
/// `SerialExecutor` promises no order here; a Dispatch serial queue's is FIFO.
public enum NestedJobs: String, Sendable, Codable, CaseIterable {
    /// Behind every job already waiting, like any other enqueue (a Dispatch serial queue's
    /// contract; the suite's choice).
    case behindWaitingJobs
    /// Ahead of every job waiting: the jobs a job enqueues run right after it returns, in
    /// the order it enqueued them, before any job enqueued earlier from outside (an event
    /// loop that runs a job's follow-ups first). Jobs enqueued from other threads, even
    /// while a job runs, stay behind those already waiting, in their order.
    case aheadOfWaitingJobs
}

/// What a virtual-time scheduler's `advance(to: target)` does with work due exactly at the
/// target. Either way it runs everything due before it, then sets the time to the target.
public enum AdvanceTarget: String, Sendable, Codable, CaseIterable {
    /// Runs it in that advance (RxSwift's `advanceTo`, ReactiveSwift's and SwiftNIO's test
    /// schedulers; the suite's choice).
    case inclusive
    /// Leaves it for the next drive (a step, a later advance), as Kotlin's `advanceTimeBy`
    /// does on purpose.
    case exclusive
}

/// From how many threads at once a virtual-time scheduler may be driven (its `step()` and
/// `advance(to:)`; the protocol's own `advance(by:)` and `stepAll()` are made of those,
/// several drives each, so LIN-2 drives with them from one thread only), and a manual clock
/// (its `advance(by:)` and `run()`).
public enum DrivenFrom: String, Sendable, Codable, CaseIterable {
    /// Any thread, even two at once: a drive runs whole, then the next, so what they run
    /// runs one at a time and each advance runs everything due by its target (a clock's
    /// advance by a duration adds it to the time it finds when its turn comes). A drive from
    /// inside an action is part of the drive that runs it. (ReactiveSwift's `TestScheduler`
    /// holds its lock through a drive; this package's `TestScheduler` and `VirtualClock`;
    /// the suite's choice.)
    case anyThread
    /// One thread at a time: the caller never drives from two threads at once, and LIN-2
    /// drives from one thread only (a scheduler that runs actions outside its lock, as
    /// combine-schedulers' `TestScheduler` does, overlaps two drives' actions).
    case oneThread
}

/// What a main-thread scheduler's `schedule(_:)` does when called on the main thread, outside
/// its own actions, with nothing of its own queued. Work already queued is never overtaken,
/// whatever the choice.
public enum MainThreadSchedule: String, Sendable, Codable, CaseIterable {
    /// Queues it, as from any other thread (ReactiveCocoa's and ReactiveSwift's main-thread
    /// schedulers, this package's `MainThreadScheduler`; the suite's choice).
    case alwaysAsynchronous
    /// Runs it inline, before the call returns (RxSwift's `MainScheduler`).
    case inlineWhenIdle
}
