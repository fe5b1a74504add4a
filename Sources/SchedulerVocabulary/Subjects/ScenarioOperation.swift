import Schedulers

/// An operation an adopter's scheduler has beyond the protocol (a `flush`, a `reset`),
/// with what it does to the pending actions in LIN-1's model: `step` gets the plain actions not yet
/// started, oldest first, and changes them as the call does (a reset empties them).
public struct ScenarioOperation: Sendable, Hashable {
    /// The operation's name, as scenarios and failures print it.
    public let name: String
    /// Makes the call on the subject's scheduler.
    public let perform: @Sendable (any Scheduler) -> Void
    /// The model's step.
    public let step: @Sendable (inout [Int]) -> Void

    /// An extra operation named `name`.
    public init(
        _ name: String, perform: @escaping @Sendable (any Scheduler) -> Void,
        step: @escaping @Sendable (inout [Int]) -> Void
    ) {
        self.name = name
        self.perform = perform
        self.step = step
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
