/// Why a subject fails what it fails, keyed by "subject rule-ID", "* rule-ID" (any subject)
/// or "subject *" (any rule of that subject failing for one cause). Stress scenarios are
/// keyed the same way, by scenario ID.
///
/// Reports print the explanation beside each failure; the ``Gate`` excuses an explained
/// failure, so a known deviation of your scheduler does not fail your run but stays visible.
public struct Explanations: Sendable, ExpressibleByDictionaryLiteral {
    /// Every explanation by key.
    public let entries: [String: String]

    /// Explanations keyed as described above.
    public init(_ entries: [String: String]) { self.entries = entries }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { first, _ in first }))
    }

    /// The most specific explanation of `subject` failing `rule` (a rule or scenario ID):
    /// "subject rule", then "* rule", then "subject *".
    public func explanation(subject: String, rule: String) -> String? {
        entries["\(subject) \(rule)"] ?? entries["* \(rule)"] ?? entries["\(subject) *"]
    }
}

/// Which results fail a run: the one policy both commands and their reports apply.
///
/// A result gates when it is a failure (failed, timeout, error) of a subject whose origin
/// is in ``origins``, of a rule whose level is in ``levels`` (stress scenarios have no
/// level and always count), and has no explanation in ``excused``.
public struct Gate: Sendable {
    /// Origins whose failures count. Mutants never do: failing is their job.
    public var origins: Set<SubjectOrigin>
    /// Rule levels whose failures count.
    public var levels: Set<RuleLevel>
    /// Known deviations: explained failures do not gate.
    public var excused: Explanations

    /// A gate; by default required failures of every subject but a mutant count.
    public init(
        origins: Set<SubjectOrigin> = [.reference, .thirdParty],
        levels: Set<RuleLevel> = [.required],
        excused: Explanations = [:]
    ) {
        self.origins = origins
        self.levels = levels
        self.excused = excused
    }

    /// This project's own runs: only the reference schedulers gate; third parties are
    /// reported with their explanations but never fail the build.
    public static let referenceOnly = Gate(origins: [.reference])

    /// Whether `status` of `rule` (nil for a stress scenario, which has no level) on a
    /// subject named `subject` from `origin` fails the run.
    public func gates(_ status: ResultStatus, subject: String, origin: SubjectOrigin, rule: String, level: RuleLevel?) -> Bool {
        guard status.isFailure, origins.contains(origin) else { return false }
        if let level, !levels.contains(level) { return false }
        return excused.explanation(subject: subject, rule: rule) == nil
    }
}
