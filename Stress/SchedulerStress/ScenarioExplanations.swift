import SchedulerVocabulary

extension Explanations.Key {
    /// `subject` failing the stress scenario `scenario`; any subject when `subject` is nil.
    public static func scenario(_ scenario: StressScenario, of subject: String? = nil) -> Self {
        Self(subject: subject, check: .scenario(scenario.id))
    }
}
