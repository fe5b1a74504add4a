import Schedulers

/// One numbered check of the catalogue.
///
/// A rule is data first (ID, title, level, capabilities, rationale, hint), which the runner
/// prints and exports, and a check second. Its ID never changes once published.
public struct Rule: Sendable, Identifiable {
    /// How much a failure of the rule matters.
    public typealias Level = RuleLevel

    /// The rule's family; its raw value is the ID prefix.
    public typealias Category = RuleCategory

    /// Stable ID: category prefix, a dash and a number, such as `ORD-1`.
    public let id: RuleID
    public let category: Category
    /// One line saying what is checked.
    public let title: String
    public let level: Level
    /// The rule runs only against subjects claiming all of these.
    public let requires: SchedulerCapabilities
    /// The rule runs only against subjects claiming at least one of these (when not empty).
    public let requiresAnyOf: SchedulerCapabilities
    /// The rule is skipped for subjects claiming any of these.
    public let excludes: SchedulerCapabilities
    /// Why users rely on this behaviour.
    public let rationale: String
    /// If this fails, check …
    public let hint: String
    /// Why no scheduler built on this package's API can fail the rule, when that is so: its
    /// passes are reported as `guaranteed`, never counted as the subject's passes.
    public let guarantee: String?
    /// The kind of subject the rule judges: its category's, unless the rule says otherwise
    /// (the model-checked rules judge every kind).
    public let kind: ConformanceSubject.Kind
    /// The rule needs the subject's `ConformanceSubject.wallClockStep` hook.
    public let needsWallClockStep: Bool
    /// The rule makes threads race on the machine's cores (a pacer and a disposer, pinned
    /// producers), or judges a timer against the suite's own timers at the same moment: two
    /// such rules at once starve each other's races, and other rules' threads are noise the
    /// timers then excuse instead of judging, so the runner and the kill counter run them
    /// one at a time.
    public let needsIdleCores: Bool
    /// The check never touches the subject (LIN-5 judges this package's own disposables):
    /// one verdict serves every subject it applies to, so a run of many subjects judges it
    /// once and gives the others that result.
    public let judgesOnlyThePackage: Bool
    /// The check itself; throws a ``RuleFailure`` naming the step that went wrong.
    let check: @Sendable (RuleContext) throws(RuleFailure) -> Void

    init(
        _ id: RuleID, _ title: String,
        level: Level = .required,
        requires: SchedulerCapabilities = [],
        anyOf: SchedulerCapabilities = [],
        excludes: SchedulerCapabilities = [],
        rationale: String,
        hint: String,
        guarantee: String? = nil,
        needsWallClockStep: Bool = false,
        needsIdleCores: Bool = false,
        judgesOnlyThePackage: Bool = false,
        kind: ConformanceSubject.Kind? = nil,
        check: @escaping @Sendable (RuleContext) throws(RuleFailure) -> Void
    ) {
        self.id = id
        self.category = id.category
        self.kind = kind ?? id.category.kind
        self.title = title
        self.level = level
        self.requires = requires
        self.requiresAnyOf = anyOf
        self.excludes = excludes
        self.rationale = rationale
        self.hint = hint
        self.guarantee = guarantee
        self.needsWallClockStep = needsWallClockStep
        self.needsIdleCores = needsIdleCores
        self.judgesOnlyThePackage = judgesOnlyThePackage
        self.check = check
    }

    /// Why this rule does not apply to `capabilities`, or `nil` when it does.
    public func skipReason(for capabilities: SchedulerCapabilities) -> String? {
        capabilities.mismatch(requires: requires, anyOf: requiresAnyOf, excludes: excludes)
    }

    /// Why this rule does not apply to `subject` (its capabilities, or a test hook it does
    /// not declare), or `nil` when it does.
    public func skipReason(for subject: ConformanceSubject) -> String? {
        if let reason = subject.kindMismatch(kind) { return reason }
        if let reason = skipReason(for: subject.capabilities) { return reason }
        if needsWallClockStep, subject.wallClockStep == nil {
            return
                """
                declares no wall-clock step hook (what a scheduler does when the wall clock jumps cannot be seen from \
                outside)
                """
        }
        return nil
    }
}

extension Rule {
    /// For a rule that applies only because `capabilities` leave out some of what it excludes:
    /// a note naming what was not claimed, for its failure message. A subject that really does
    /// that (steps one action at a time, runs before `schedule` returns) fails a rule written
    /// for the opposite, and the fix is a claim, not a change of behaviour; nil when the rule
    /// excludes nothing.
    public func exclusionNote(for capabilities: SchedulerCapabilities) -> String? {
        let unclaimed = SchedulerCapabilities.named.filter {
            excludes.contains($0.capability) && !capabilities.contains($0.capability)
        }
        guard !unclaimed.isEmpty else { return nil }
        let names = unclaimed.map { "`\($0.name)`" }
        let doing = unclaimed.map { SchedulerCapabilities.behaviour[$0.name] ?? "is \($0.name)" }
        if unclaimed.count == 1 {
            return "(this rule applies because the subject does not claim \(names[0]); if it \(doing[0]), claim it)"
        }
        return
            """
            (this rule applies because the subject claims none of \(names.joined(separator: ", ")); if it \
            \(doing.joined(separator: ", or ")), claim that)
            """
    }
}

extension SchedulerCapabilities {
    /// What a subject does that claims each capability, by name, worded to follow "if it".
    package static let behaviour: [String: String] = [
        "asynchronous": "never runs an action inside `schedule`",
        "synchronous": "runs each action before `schedule` returns",
        "serial": "runs actions one at a time, in order",
        "concurrent": "runs actions at the same time",
        "cancellation": "returns handles whose disposal stops pending work",
        "timers": "runs work at a deadline",
        "repeating": "repeats work at an interval",
        "virtualTime": "moves its time only when advanced",
        "tracksCurrent": "sets the current scheduler around its actions",
        "trampoline": "defers nested work to a per-thread queue",
        "mainThread": "runs its actions on the main thread",
        "subscription": "runs inline when a current scheduler exists",
        "cancelsWhenReleased": "cancels work when the last reference to its handle goes",
        "threadConfined": "must only be called from the thread that made it",
        "singleStep": "runs exactly one action per step (single-steps)",
        "taskExecutor": "is a task executor",
        "checksIsolation": "answers isolation checks",
    ]
}

/// Why a rule did not pass: what was observed, at which step.
public struct RuleFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of outcome this is.
    public enum Kind: Sendable {
        /// The scheduler misbehaved.
        case failed
        /// The rule could not be judged (the subject or the harness broke a precondition).
        case error
        /// The rule cannot be judged in this process (no main thread to drive, say).
        case skipped
        /// The situation the rule judges did not occur, so nothing was judged.
        case inconclusive
        /// The scheduler stopped running work: reported as a timeout, with stacks.
        case hung
    }

    /// What was expected and what was observed.
    public let message: String
    public let kind: Kind
    /// Every thread's stack, for a hang (nil where gdb cannot attach).
    public let threadDump: String?

    /// A failure (or, by `kind`, an error or a skip) saying what was observed.
    public init(_ message: String, kind: Kind = .failed, threadDump: String? = nil) {
        self.message = message
        self.kind = kind
        self.threadDump = threadDump
    }

    public var description: String { message }
}
