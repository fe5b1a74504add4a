/// What a scheduler promises. The conformance suite runs a rule only against schedulers
/// that claim every capability the rule needs, and reports the rest as skipped.
///
/// Clocks and executors under test claim from the same set: a clock whose sleeps suspend
/// is ``asynchronous``, one whose sleeps return at once is ``synchronous``, a manual
/// (test) clock is ``virtualTime``; an executor is ``asynchronous``, ``serial`` when it is
/// a `SerialExecutor`, ``taskExecutor`` when it is a `TaskExecutor`, ``virtualTime`` when
/// it runs jobs only when driven, and ``checksIsolation`` when it answers isolation checks.
public struct SchedulerCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `schedule` never runs the action before it returns.
    public static let asynchronous = SchedulerCapabilities(rawValue: 1 << 0)
    /// `schedule` runs the action on the caller's thread before it returns.
    public static let synchronous = SchedulerCapabilities(rawValue: 1 << 1)
    /// Actions run one at a time, in the order they were scheduled, whichever threads
    /// scheduled them (the immediate scheduler and the trampoline are serial only per thread).
    public static let serial = SchedulerCapabilities(rawValue: 1 << 2)
    /// Actions may run at the same time; claiming this promises that they really can overlap.
    public static let concurrent = SchedulerCapabilities(rawValue: 1 << 3)
    /// `schedule` returns a handle whose disposal stops an action that has not started.
    public static let cancellation = SchedulerCapabilities(rawValue: 1 << 4)
    /// `schedule(at:)` and `schedule(after:)` work.
    public static let timers = SchedulerCapabilities(rawValue: 1 << 5)
    /// `schedule(at:repeatingEvery:leeway:)` works.
    public static let repeating = SchedulerCapabilities(rawValue: 1 << 6)
    /// Time passes only when the scheduler is advanced; see ``VirtualTimeScheduler``.
    public static let virtualTime = SchedulerCapabilities(rawValue: 1 << 7)
    /// ``CurrentScheduler/value`` is this scheduler while its actions run, timers included.
    public static let tracksCurrent = SchedulerCapabilities(rawValue: 1 << 8)
    /// Per-thread trampoline: nested schedules run after the outer action returns, FIFO.
    public static let trampoline = SchedulerCapabilities(rawValue: 1 << 9)
    /// Actions run on the main thread.
    public static let mainThread = SchedulerCapabilities(rawValue: 1 << 10)
    /// Runs inline when a current scheduler exists, otherwise asynchronously elsewhere.
    public static let subscription = SchedulerCapabilities(rawValue: 1 << 11)
    /// Releasing the last reference to a returned handle cancels the work, as Combine's
    /// cancellables do; the ReactiveCocoa model instead keeps work until `dispose()`.
    public static let cancelsWhenReleased = SchedulerCapabilities(rawValue: 1 << 12)
    /// Every call, release included, must come from the thread that created the scheduler,
    /// as with SwiftNIO's `EmbeddedEventLoop`; rules that call it from other threads skip it.
    public static let threadConfined = SchedulerCapabilities(rawValue: 1 << 13)
    /// With ``virtualTime``: `step()` runs exactly one action. Without it a virtual
    /// scheduler steps by instants, as ReactiveSwift's test scheduler and SwiftNIO's test
    /// loops do: a step moves time to the earliest pending instant and runs everything due
    /// then, work scheduled for that instant while it runs included.
    public static let singleStep = SchedulerCapabilities(rawValue: 1 << 14)
    /// An executor that is a `TaskExecutor`: tasks can prefer it (SE-0417).
    public static let taskExecutor = SchedulerCapabilities(rawValue: 1 << 15)
    /// An executor whose `checkIsolated()` and `isIsolatingCurrentContext()` answer for real
    /// (SE-0424, SE-0471), instead of the defaults that trap or know nothing.
    public static let checksIsolation = SchedulerCapabilities(rawValue: 1 << 16)

    /// Every named capability with its stable name, in declaration order; the names are
    /// what reports and the command line use.
    public static let named: [(name: String, capability: SchedulerCapabilities)] = [
        ("asynchronous", .asynchronous), ("synchronous", .synchronous), ("serial", .serial),
        ("concurrent", .concurrent), ("cancellation", .cancellation), ("timers", .timers),
        ("repeating", .repeating), ("virtualTime", .virtualTime), ("tracksCurrent", .tracksCurrent),
        ("trampoline", .trampoline), ("mainThread", .mainThread), ("subscription", .subscription),
        ("cancelsWhenReleased", .cancelsWhenReleased), ("threadConfined", .threadConfined),
        ("singleStep", .singleStep), ("taskExecutor", .taskExecutor), ("checksIsolation", .checksIsolation),
    ]

    /// The names of the capabilities in this set, in declaration order.
    public var names: [String] {
        Self.named.filter { contains($0.capability) }.map(\.name)
    }

    public var description: String { "[" + names.joined(separator: ", ") + "]" }
}
