import Dispatch
import Schedulers

/// A scheduler, clock or executor under test: a factory of fresh instances and the
/// capabilities it claims.
///
/// The suite runs every rule written for the subject's ``kind`` whose required capabilities
/// the subject claims, and reports the others as skipped, with the reason. A scheduler
/// subject that claims `SchedulerCapabilities/virtualTime` must make schedulers that
/// conform to `VirtualTimeScheduler`: that conformance is how the suite advances its time.
public struct ConformanceSubject: Sendable {
    /// Where a subject comes from; reports keep them apart.
    public typealias Origin = SubjectOrigin

    /// What a subject is; each rule judges one kind (its category says which).
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A `Scheduler`: the ORD … THR rules.
        case scheduler
        /// A Swift `Clock`, behind a ``ClockUnderTest``: the CLK rules.
        case clock
        /// A Swift concurrency executor, behind an ``ExecutorUnderTest``: the EXE rules.
        case executor
    }

    private enum Factory: Sendable {
        case scheduler(@Sendable () -> any Scheduler)
        case clock(@Sendable () -> ClockUnderTest)
        case executor(@Sendable () -> ExecutorUnderTest)
    }

    /// The subject's name in reports and on the command line.
    public let name: String
    /// Where the subject comes from.
    public let origin: Origin
    /// What the subject claims; rules are selected by it.
    public let capabilities: SchedulerCapabilities
    private let factory: Factory
    /// A test hook that moves the wall clock this subject's schedulers read by the given
    /// amount (forwards or backwards), for schedulers that read one at all. With it the
    /// suite checks that a wall-clock jump neither stalls nor hastens a timer; without it,
    /// those rules are skipped, since a jump of the real clock cannot be made from a test.
    public let wallClockStep: (@Sendable (Duration) -> Void)?
    /// Calls the subject's schedulers have beyond the protocol (a `flush`, a `reset`), each
    /// with its step in LIN-1's model, so the model-checked scenarios call them too.
    public var scenarioOperations: [ScenarioOperation] = []
    /// The choices of SEMANTICS.md §8 the subject made differently from the suite, which
    /// the rules then hold it to (see ``declaring(_:)``).
    public var declared = Declarations()
    /// The queue a scheduler made by the subject hands its work to, when the benchmark should
    /// compare it with bare `async` there (see ``benchmarked(onTarget:)``).
    public private(set) var benchmarkTarget: (@Sendable (any Scheduler) -> DispatchQueue)?

    /// A scheduler subject named `name` whose capabilities are those its schedulers declare,
    /// unless `capabilities` overrides them (to claim less than a scheduler declares, say).
    public init(
        name: String,
        origin: Origin = .thirdParty,
        capabilities: SchedulerCapabilities? = nil,
        wallClockStep: (@Sendable (Duration) -> Void)? = nil,
        make: @escaping @Sendable () -> any Scheduler
    ) {
        self.init(
            name: name, origin: origin, capabilities: capabilities ?? make().capabilities, wallClockStep: wallClockStep,
            factory: .scheduler(make))
    }

    /// A clock subject: `make` returns a fresh clock (or the shared one, for a clock without
    /// state) behind its adapter, whose capabilities the subject claims unless overridden.
    public init(
        name: String, origin: Origin = .thirdParty, capabilities: SchedulerCapabilities? = nil,
        clock make: @escaping @Sendable () -> ClockUnderTest
    ) {
        self.init(
            name: name, origin: origin, capabilities: capabilities ?? make().capabilities, wallClockStep: nil,
            factory: .clock(make))
    }

    /// An executor subject: `make` returns a fresh executor behind its adapter, whose
    /// capabilities the subject claims unless overridden.
    public init(
        name: String, origin: Origin = .thirdParty, capabilities: SchedulerCapabilities? = nil,
        executor make: @escaping @Sendable () -> ExecutorUnderTest
    ) {
        self.init(
            name: name, origin: origin, capabilities: capabilities ?? make().capabilities, wallClockStep: nil,
            factory: .executor(make))
    }

    private init(
        name: String, origin: Origin, capabilities: SchedulerCapabilities,
        wallClockStep: (@Sendable (Duration) -> Void)?, factory: Factory
    ) {
        self.name = name
        self.origin = origin
        self.capabilities = capabilities
        self.wallClockStep = wallClockStep
        self.factory = factory
    }

    /// What the subject is.
    public var kind: Kind {
        switch factory {
        case .scheduler: .scheduler
        case .clock: .clock
        case .executor: .executor
        }
    }

    /// A fresh scheduler. Only for scheduler subjects: rules and scenarios check ``kind``
    /// before they make anything, so asking another kind is a programming error.
    public func makeScheduler() -> any Scheduler {
        guard case .scheduler(let make) = factory else { preconditionFailure("\(name) is a \(kind), not a scheduler") }
        return make()
    }

    /// A fresh clock; only for clock subjects (see ``makeScheduler()``).
    public func makeClock() -> ClockUnderTest {
        guard case .clock(let make) = factory else { preconditionFailure("\(name) is a \(kind), not a clock") }
        return make()
    }

    /// A fresh executor; only for executor subjects (see ``makeScheduler()``).
    public func makeExecutor() -> ExecutorUnderTest {
        guard case .executor(let make) = factory else { preconditionFailure("\(name) is a \(kind), not an executor") }
        return make()
    }

    /// What the stress benchmarks compare the subject with.
    public var baseline: BareBaseline {
        switch kind {
        case .scheduler: benchmarkTarget == nil ? .forScheduler(capabilities) : .targetQueue
        case .executor: capabilities.contains(.virtualTime) ? .drivenExecutor : .dispatchExecutor
        case .clock: .parkedContinuations
        }
    }

    /// The subject, benchmarked against bare `async` on the queue `target` returns for each of
    /// its schedulers: the queue its work lands on, which a user without the scheduler would
    /// have used.
    public func benchmarked(onTarget target: @escaping @Sendable (any Scheduler) -> DispatchQueue) -> Self {
        var subject = self
        subject.benchmarkTarget = target
        return subject
    }

    /// Why a check written for subjects of `kind` does not apply to this one, or `nil`.
    public func kindMismatch(_ kind: Kind) -> String? {
        self.kind == kind
            ? nil
            : "is \(self.kind == .executor ? "an" : "a") \(self.kind), not \(kind == .executor ? "an" : "a") \(kind)"
    }
}
