/// How much a failure of the rule matters.
public enum RuleLevel: String, Codable, Sendable, CaseIterable {
    /// What every scheduler claiming the capabilities must do; failures fail the run.
    case required
    /// Good behaviour that the field does not universally promise; reported only.
    case optional
    /// Depends on timing or scheduling luck (a lateness bound, a real overlap); its
    /// failures are reported but do not fail the run.
    case stochastic
}
