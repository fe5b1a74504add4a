import Schedulers

/// A scheduler under test: a factory of fresh instances and the capabilities it claims.
///
/// The suite runs every rule whose required capabilities the subject claims and reports
/// the others as skipped, with the reason. A subject that claims
/// ``SchedulerCapabilities/virtualTime`` must make schedulers that conform to
/// ``VirtualTimeScheduler``: that conformance is how the suite advances its time.
public struct ConformanceSubject: Sendable {
    /// Where a subject comes from; reports keep them apart.
    public enum Origin: String, Codable, Sendable {
        /// One of this package's reference schedulers.
        case reference
        /// Somebody else's scheduler, behind an adapter.
        case thirdParty = "third-party"
        /// A deliberately broken scheduler that the suite must reject.
        case mutant
    }

    /// The subject's name in reports and on the command line.
    public let name: String
    /// Where the subject comes from.
    public let origin: Origin
    /// What the subject claims; rules are selected by it.
    public let capabilities: SchedulerCapabilities
    /// Makes a fresh scheduler; called at least once per rule.
    public let make: @Sendable () -> any Scheduler
    /// A test hook that moves the wall clock this subject's schedulers read by the given
    /// amount (forwards or backwards), for schedulers that read one at all. With it the
    /// suite checks that a wall-clock jump neither stalls nor hastens a timer; without it,
    /// those rules are skipped, since a jump of the real clock cannot be made from a test.
    public let wallClockStep: (@Sendable (Duration) -> Void)?

    /// A subject named `name` whose capabilities are those its schedulers declare, unless
    /// `capabilities` overrides them (to claim less than a scheduler declares, say).
    public init(
        name: String,
        origin: Origin = .thirdParty,
        capabilities: SchedulerCapabilities? = nil,
        wallClockStep: (@Sendable (Duration) -> Void)? = nil,
        make: @escaping @Sendable () -> any Scheduler
    ) {
        self.name = name
        self.origin = origin
        self.capabilities = capabilities ?? make().capabilities
        self.wallClockStep = wallClockStep
        self.make = make
    }
}
