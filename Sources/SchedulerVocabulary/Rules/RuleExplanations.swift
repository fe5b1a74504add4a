extension Explanations.Key {
    /// `subject` failing the rule `id`; any subject when `subject` is nil.
    public static func rule(_ id: RuleID, of subject: String? = nil) -> Self {
        Self(subject: subject, check: .rule(id))
    }
}
