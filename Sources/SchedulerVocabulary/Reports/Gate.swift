/// Why a subject fails what it fails: keyed by a subject and a check (a rule or a stress
/// scenario), by a check for any subject, or by a subject for any of its checks failing for
/// one cause. The keys name rules and scenarios by IDs the compiler checks (``Key/rule(_:of:)``,
/// and `Key.scenario(_:of:)` in `SchedulerStress`).
///
/// Reports print the explanation beside each failure; the ``Gate`` excuses an explained
/// failure, so a known deviation of your scheduler does not fail your run but stays visible.
public struct Explanations: Sendable, ExpressibleByDictionaryLiteral {
    /// What an explanation is about; `nil` stands for any.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        /// The subject's name, or nil for every subject.
        public let subject: String?
        /// The rule or scenario, or nil for every check of the subject.
        public let check: CheckID?

        /// A key for `subject` (nil: any) failing `check` (nil: any check).
        public init(subject: String?, check: CheckID?) {
            self.subject = subject
            self.check = check
        }

        /// Every check of `subject` (one cause behind all its failures).
        public static func subject(_ subject: String) -> Key { Key(subject: subject, check: nil) }

        /// As a report prints it: `subject check`, with `*` for any.
        public var description: String { "\(subject ?? "*") \(check?.description ?? "*")" }
    }

    /// Every explanation by key.
    public let entries: [Key: String]

    /// Explanations by key.
    public init(_ entries: [Key: String]) { self.entries = entries }

    public init(dictionaryLiteral elements: (Key, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { first, _ in first }))
    }

    /// The most specific explanation of `subject` failing `check` (a rule or scenario ID):
    /// that subject and check, then the check for any subject, then any check of the subject.
    public func explanation(subject: String, check: CheckID) -> String? {
        entries[Key(subject: subject, check: check)] ?? entries[Key(subject: nil, check: check)]
            ?? entries[.subject(subject)]
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

    /// Whether `status` of `check` at `level` (nil for a stress scenario, which has none) on a
    /// subject named `subject` from `origin` fails the run.
    public func gates(
        _ status: ResultStatus, subject: String, origin: SubjectOrigin, check: CheckID, level: RuleLevel?
    ) -> Bool {
        guard status.isFailure, origins.contains(origin) else { return false }
        if let level, !levels.contains(level) { return false }
        return excused.explanation(subject: subject, check: check) == nil
    }
}
