/// A deliberately broken scheduler and the rule written to catch it.
///
/// Mutants are how a suite proves its rules can fail: each is wrong in one subtle way and
/// claims what a correct scheduler claims, so only the rule written for its fault can tell.
/// The `conformance mutants` command runs each one's rule repeatedly and fails unless every
/// run catches it. Authors of a scheduler can keep mutants of their own the same way.
public struct Mutant: Sendable {
    /// The broken scheduler as a subject (origin `ConformanceSubject/Origin/mutant`).
    public let subject: ConformanceSubject
    /// What is wrong with it, in a few words.
    public let fault: String
    /// The rule that must fail on it in every run.
    public let killer: RuleID

    /// A mutant whose `subject` has `fault`, to be caught by the rule `killer`.
    public init(subject: ConformanceSubject, fault: String, killer: RuleID) {
        self.subject = subject
        self.fault = fault
        self.killer = killer
    }
}
