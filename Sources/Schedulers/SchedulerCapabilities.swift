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

    /// One bit per capability, in declaration order: distinct by construction, and named
    /// by the case, so that no two capabilities can share a bit or a name by an edit.
    private enum Bit: UInt32, CaseIterable {
        case asynchronous, synchronous, serial, concurrent, cancellation, timers, repeating, virtualTime
        case tracksCurrent, trampoline, mainThread, subscription, cancelsWhenReleased, threadConfined
        case singleStep, taskExecutor, checksIsolation
    }

    private init(_ bit: Bit) { self.init(rawValue: 1 << bit.rawValue) }

    /// `schedule` never runs the action before it returns.
    public static let asynchronous = Self(.asynchronous)
    /// `schedule` runs the action on the caller's thread before it returns.
    public static let synchronous = Self(.synchronous)
    /// Actions run one at a time, in the order they were scheduled, whichever threads
    /// scheduled them (the immediate scheduler and the trampoline are serial only per thread).
    public static let serial = Self(.serial)
    /// Actions may run at the same time; claiming this promises that they really can overlap.
    public static let concurrent = Self(.concurrent)
    /// `schedule` returns a handle whose disposal stops an action that has not started.
    public static let cancellation = Self(.cancellation)
    /// `schedule(at:)` and `schedule(after:)` work.
    public static let timers = Self(.timers)
    /// `schedule(at:repeatingEvery:leeway:)` works.
    public static let repeating = Self(.repeating)
    /// Time passes only when the scheduler is advanced; see ``VirtualTimeScheduler``.
    public static let virtualTime = Self(.virtualTime)
    /// ``CurrentScheduler/value`` is this scheduler while its actions run, timers included.
    public static let tracksCurrent = Self(.tracksCurrent)
    /// Per-thread trampoline: nested schedules run after the outer action returns, FIFO.
    public static let trampoline = Self(.trampoline)
    /// Actions run on the main thread.
    public static let mainThread = Self(.mainThread)
    /// Runs inline when a current scheduler exists, otherwise asynchronously elsewhere.
    public static let subscription = Self(.subscription)
    /// Releasing the last reference to a returned handle cancels the work, as Combine's
    /// cancellables do; the ReactiveCocoa model instead keeps work until `dispose()`.
    public static let cancelsWhenReleased = Self(.cancelsWhenReleased)
    /// Every call, release included, must come from the thread that created the scheduler,
    /// as with SwiftNIO's `EmbeddedEventLoop`; rules that call it from other threads skip it.
    public static let threadConfined = Self(.threadConfined)
    /// With ``virtualTime``: `step()` runs exactly one action. Without it a virtual
    /// scheduler steps by instants, as ReactiveSwift's test scheduler and SwiftNIO's test
    /// loops do: a step moves time to the earliest pending instant and runs everything due
    /// then, work scheduled for that instant while it runs included.
    public static let singleStep = Self(.singleStep)
    /// An executor that is a `TaskExecutor`: tasks can prefer it (SE-0417).
    public static let taskExecutor = Self(.taskExecutor)
    /// An executor whose `checkIsolated()` and `isIsolatingCurrentContext()` answer for real
    /// (SE-0424, SE-0471), instead of the defaults that trap or know nothing.
    public static let checksIsolation = Self(.checksIsolation)

    /// Every named capability with its stable name, in declaration order; the names are
    /// what reports and the command line use.
    public static let named: [(name: String, capability: SchedulerCapabilities)] = Bit.allCases.map {
        ("\($0)", Self($0))
    }

    /// The names of the capabilities in this set, in declaration order.
    public var names: [String] {
        Self.named.filter { contains($0.capability) }.map(\.name)
    }

    public var description: String { "[" + names.joined(separator: ", ") + "]" }
}
