import Schedulers

/// An executor under test, as the EXE rules see it: a `SerialExecutor`, a `TaskExecutor`,
/// or both, with what it claims.
///
/// The rules reach a serial executor through an actor whose `unownedExecutor` it is, and
/// a task executor through `Task(executorPreference:)`, so its jobs are real jobs made by
/// the runtime. An executor that runs jobs only when driven (in virtual time) gives
/// `drive`, which runs everything that is ready and returns.
public struct ExecutorUnderTest: Sendable {
    /// What the executor promises.
    public let capabilities: SchedulerCapabilities
    /// The executor as a serial executor, if it is one.
    public let serial: (any SerialExecutor)?
    /// The executor as a task executor, if it is one.
    public let task: (any TaskExecutor)?
    /// Runs every ready job, for an executor that runs nothing until driven.
    public let drive: (@Sendable () -> Void)?

    /// What makes the executor's context exclusive, as the adapter knows it: the identity of
    /// the executor itself unless the adapter named something else (the scheduler under a
    /// `SchedulerExecutor`, an event loop). Two executors with different ones must not
    /// call themselves one exclusive context; with the same one they are one.
    public let exclusiveContext: ObjectIdentifier

    /// Whether `isSameExclusiveExecutionContext(other:)` says `other` is this executor's
    /// context; nil when either is not serial or they are of different types.
    package let sameContext: @Sendable (ExecutorUnderTest) -> Bool?

    private init(
        capabilities: SchedulerCapabilities, serial: (any SerialExecutor)?, task: (any TaskExecutor)?,
        drive: (@Sendable () -> Void)?, context: ObjectIdentifier,
        sameContext: @escaping @Sendable (ExecutorUnderTest) -> Bool?
    ) {
        var capabilities = capabilities.union(.asynchronous)
        if serial != nil { capabilities.insert(.serial) }
        if task != nil { capabilities.insert(.taskExecutor) }
        if drive != nil { capabilities.insert(.virtualTime) }
        self.capabilities = capabilities
        self.serial = serial
        self.task = task
        self.drive = drive
        self.exclusiveContext = context
        self.sameContext = sameContext
    }

    /// An executor that is both a serial and a task executor, as `SchedulerExecutor` is.
    ///
    /// - Parameters:
    ///   - executor: the executor under test.
    ///   - checksIsolation: whether its `checkIsolated()` and `isIsolatingCurrentContext()`
    ///     really answer (claims `SchedulerCapabilities/checksIsolation`).
    ///   - drive: for an executor that runs jobs only when driven.
    ///   - context: what makes its context exclusive, when that is not the executor itself
    ///     (several executor objects on one queue, thread or scheduler are one context).
    public init<E: SerialExecutor & TaskExecutor>(
        _ executor: E, checksIsolation: Bool, drive: (@Sendable () -> Void)? = nil, context: AnyObject? = nil
    ) {
        self.init(
            capabilities: checksIsolation ? [.checksIsolation] : [], serial: executor, task: executor, drive: drive,
            context: ObjectIdentifier(context ?? executor), sameContext: Self.comparer(executor)
        )
    }

    /// A serial executor only, reached through an actor; `context` as for ``init(_:checksIsolation:drive:context:)``.
    public init<E: SerialExecutor>(
        serial executor: E, checksIsolation: Bool, drive: (@Sendable () -> Void)? = nil, context: AnyObject? = nil
    ) {
        self.init(
            capabilities: checksIsolation ? [.checksIsolation] : [], serial: executor, task: nil, drive: drive,
            context: ObjectIdentifier(context ?? executor), sameContext: Self.comparer(executor)
        )
    }

    /// A task executor only, reached through task preference.
    public init<E: TaskExecutor>(task executor: E, drive: (@Sendable () -> Void)? = nil) {
        self.init(
            capabilities: [], serial: nil, task: executor, drive: drive, context: ObjectIdentifier(executor),
            sameContext: { _ in nil })
    }

    private static func comparer<E: SerialExecutor>(_ executor: E) -> @Sendable (ExecutorUnderTest) -> Bool? {
        { other in (other.serial as? E).map { executor.isSameExclusiveExecutionContext(other: $0) } }
    }

    /// A `SchedulerExecutor` on `scheduler`, driven by advancing it when it is virtual; its
    /// exclusive context is its scheduler, which every executor on it shares.
    public init(_ executor: SchedulerExecutor) {
        var drive: (@Sendable () -> Void)?
        if let virtual = executor.scheduler as? any VirtualTimeScheduler {
            drive = { virtual.advance(to: virtual.now) }
        }
        self.init(executor, checksIsolation: true, drive: drive, context: executor.scheduler)
    }
}
