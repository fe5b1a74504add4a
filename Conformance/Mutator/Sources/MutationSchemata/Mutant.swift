/// One way of breaking code: each names a defect that concurrent scheduler code really has.
public enum MutationOperator: String, Codable, Sendable, CaseIterable, Comparable {
    /// `<` ↔ `<=`, `>` ↔ `>=`: a deadline or a count off at its boundary.
    case relationalBoundary = "relational-boundary"
    /// An `if`, `guard` or `while` condition negated.
    case negateCondition = "negate-condition"
    /// `&&` ↔ `||`.
    case logicalConnector = "logical-connector"
    /// A call statement removed: a `dispose()`, a `signal()`, a `resume`, a restore.
    case removeCall = "remove-call"
    /// Two adjacent statements swapped: a publication before its preparation.
    case swapStatements = "swap-statements"
    /// An atomic operation's memory ordering weakened to `.relaxed`.
    case weakenOrdering = "weaken-ordering"
    /// A `withLock { body }` whose body runs on a copy of the state, read and written back
    /// under two separate acquisitions: the lost update of a critical section split in two.
    case unguardLock = "unguard-lock"
    /// A `return` at the top of a function that returns nothing.
    case earlyReturn = "early-return"
    /// An integer constant one larger.
    case offByOne = "off-by-one"

    /// What the operator does, for `--help` and reports.
    public var summary: String {
        switch self {
        case .relationalBoundary: "< ↔ <=, > ↔ >="
        case .negateCondition: "an if, guard or while condition negated"
        case .logicalConnector: "&& ↔ ||"
        case .removeCall: "a call statement removed"
        case .swapStatements: "two adjacent statements swapped"
        case .weakenOrdering: "an atomic's memory ordering weakened to .relaxed"
        case .unguardLock: "withLock's body run on a copy, outside the lock"
        case .earlyReturn: "return at the top of a function returning nothing"
        case .offByOne: "an integer constant plus one"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One mutant of a schemata build: where it is, what it changes, and where its guarded
/// code sits in the generated file (so a compile error there can be pinned on it).
public struct Mutant: Codable, Sendable, Equatable {
    /// Its switch value: `SCHEDULER_MUTANT=id` turns it on. Never 0, which is "none".
    public var id: Int
    /// The source file, relative to the target's folder.
    public var file: String
    /// Where the changed code starts in the original file (1-based).
    public var line: Int
    public var column: Int
    public var `operator`: MutationOperator
    /// The declaration it is in, as `Type.member(labels:)`: a key that survives edits
    /// elsewhere in the file, unlike a line number.
    public var context: String
    /// The original code and what the mutant has instead ("" for code removed).
    public var original: String
    public var mutated: String
    /// Its place among mutants with the same context, operator and code (1-based).
    public var occurrence: Int
    /// Where its guarded code sits in the generated file.
    public var schemata: Span
    /// Whether its code runs once per process (a static or global stored property's
    /// initializer): no single rule reaches it, whichever rule happened to run first does,
    /// so every rule is a candidate to kill it.
    public var runsOnce: Bool = false

    /// A stretch of a generated file, from its first character to its last, each as
    /// [line, column] (1-based; columns count UTF-8 bytes, as the compiler's do).
    public struct Span: Codable, Sendable, Equatable {
        public var start: [Int]
        public var end: [Int]

        /// Whether `line:column` lies inside.
        public func contains(line: Int, column: Int) -> Bool {
            (start[0], start[1]) <= (line, column) && (line, column) <= (end[0], end[1])
        }

        /// How many lines and columns it covers, to find the innermost of nested spans.
        public var size: (lines: Int, columns: Int) { (end[0] - start[0], end[1] - start[1]) }
    }

    /// The identity that a declaration of equivalence names.
    public var key: String {
        "\(file)|\(context)|\(`operator`.rawValue)|\(original)|\(mutated)|\(occurrence)"
    }
}

/// What `scheduler-mutator schemata` writes beside the generated sources.
public struct MutantManifest: Codable, Sendable, Equatable {
    /// The files that were rewritten, relative to the target's folder.
    public var files: [String]
    /// The generated switch file's name, in the target's folder.
    public var switchFile: String
    public var mutants: [Mutant]

    public init(files: [String], switchFile: String, mutants: [Mutant]) {
        self.files = files
        self.switchFile = switchFile
        self.mutants = mutants
    }
}
