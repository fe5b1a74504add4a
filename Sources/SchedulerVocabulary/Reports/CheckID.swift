/// What a result judges: a rule of the catalogue or a stress scenario. The gate and the
/// explanations of known deviations are keyed by it.
public enum CheckID: Hashable, Sendable, CustomStringConvertible {
    case rule(RuleID)
    case scenario(ScenarioID)

    /// The ID as reports write it (`ORD-1`, `fan-in`).
    public var description: String {
        switch self {
        case .rule(let id): id.rawValue
        case .scenario(let id): id.rawValue
        }
    }
}
