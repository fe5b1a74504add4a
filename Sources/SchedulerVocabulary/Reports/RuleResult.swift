/// The outcome of one rule on one subject.
public struct RuleResult: Codable, Sendable, Equatable {
    /// How a rule ended: the status every report shares.
    public typealias Status = ResultStatus

    /// The rule, written in the report as its ID's text.
    public var rule: RuleID
    /// The rule's level, so a reader needs no catalogue to tell what gates.
    public var level: RuleLevel?
    public var status: Status
    /// Whether the risky situation the rule judges was forced or observed: true for a
    /// pass or a failure, false when the rule was skipped, inconclusive or guaranteed.
    public var exercised: Bool
    public var durationSeconds: Double
    /// What was observed: what went wrong, why the rule was skipped or inconclusive, what
    /// guarantees it; absent for a plain pass.
    public var message: String?
    /// Every thread's stack, when a timeout could be diagnosed.
    public var threadDump: String?

    /// A result of `rule`; `message` is required for anything but `passed`.
    public init(
        rule: RuleID, level: RuleLevel? = nil, status: Status, durationSeconds: Double,
        message: String? = nil, threadDump: String? = nil
    ) {
        self.rule = rule
        self.level = level
        self.status = status
        self.exercised = status == .passed || status == .failed
        self.durationSeconds = durationSeconds
        self.message = message
        self.threadDump = threadDump
    }
}
