import Synchronization

/// What a subject should do, written one call at a time: the specification a concurrent
/// history is judged against.
///
/// A model is a pure value. ``apply(_:)`` says every way a correct subject may carry out
/// one operation from this state, so a model of a subject that may choose (a concurrent
/// scheduler starting either of two pending actions) returns each choice. Models are
/// written from the semantics and the catalogue, never from a reference implementation,
/// so that the reference is judged too.
public protocol SequentialModel: Hashable, Sendable {
    /// A call into the subject, or something the suite's own actions saw while it ran them.
    associatedtype Operation: Hashable, Sendable, CustomStringConvertible
    /// What an operation returned, or what an action observed.
    associatedtype Outcome: Hashable, Sendable, CustomStringConvertible

    /// Each outcome a correct subject may give for `operation` in this state, with the
    /// state after it; empty when the operation cannot happen now (an action started out
    /// of turn, a sleeper resumed before its deadline).
    func apply(_ operation: Operation) -> [(outcome: Outcome, next: Self)]
}

/// One entry of a concurrent history: an operation, what came of it, and the interval in
/// which it took effect, as tickets of ``HistoryClock``.
///
/// An entry that returned before another was invoked must come first in any sequential
/// explanation; entries whose intervals meet may come in either order.
public struct HistoryEntry<Operation: Sendable, Outcome: Sendable>: Sendable {
    /// What was called or observed.
    public var operation: Operation
    /// What it returned, or what was observed.
    public var outcome: Outcome
    /// A ticket taken no later than the operation took effect.
    public var invoked: UInt64
    /// A ticket taken no earlier than the operation took effect; `.max` when it never returned.
    public var returned: UInt64
    /// Who made it: 0 for the sequential parts, 1… for the threads of the parallel part, and
    /// ``HistoryEntry/subject`` for what the subject's actions observed.
    public var thread: Int

    /// The thread number of observations made inside the subject's actions.
    public static var subject: Int { -1 }

    /// An entry for `operation`, which had `outcome` within `invoked…returned`.
    public init(_ operation: Operation, _ outcome: Outcome, invoked: UInt64, returned: UInt64, thread: Int) {
        self.operation = operation
        self.outcome = outcome
        self.invoked = invoked
        self.returned = returned
        self.thread = thread
    }
}

/// A process-wide ticket counter. One atomic read-modify-write per ticket orders every
/// ticket totally and consistently with happens-before, so "returned before invoked" read
/// from tickets is real-time order, which no clock read on two cores promises.
public enum HistoryClock {
    private static let counter = Atomic<UInt64>(1)

    /// A ticket later than every ticket taken before it, on any thread.
    @inline(__always)
    public static func tick() -> UInt64 { counter.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }
}
