import SwiftOperators
import SwiftParser
import SwiftSyntax

/// Turns a target's sources into mutant schemata: one copy of the code in which every
/// mutant is compiled in and switched on at run time by `SCHEDULER_MUTANT=<id>`, so one
/// build serves them all.
public enum Schemata {
    /// What to mutate and what to leave.
    public struct Options: Sendable {
        public var operators: Set<MutationOperator>
        /// Per file (relative path), the only lines to mutate; nil mutates every line.
        public var changedLines: [String: Set<Int>]?
        /// Mutants an earlier build could not compile, by ID.
        public var excluded: Set<Int>
        public var conditions: CompilationConditions

        public init(
            operators: Set<MutationOperator> = Set(MutationOperator.allCases), changedLines: [String: Set<Int>]? = nil,
            excluded: Set<Int> = [], conditions: CompilationConditions = CompilationConditions()
        ) {
            self.operators = operators
            self.changedLines = changedLines
            self.excluded = excluded
            self.conditions = conditions
        }
    }

    /// A rewritten file.
    public struct Output: Sendable, Equatable {
        /// Relative to the target's folder.
        public var path: String
        public var text: String
    }

    /// The name of the file that holds the switch, added to the target.
    public static let switchFileName = "__SchedulerMutantSwitch.swift"

    /// The environment variables the switch reads.
    public static let activeVariable = "SCHEDULER_MUTANT"
    public static let coverageVariable = "SCHEDULER_MUTANT_COVERAGE"

    /// The schemata of `files` (relative path and text, in a stable order): the rewritten
    /// files that have mutants, and the manifest. IDs run from 1 in the files' order.
    public static func generate(files: [(path: String, text: String)], options: Options) -> (
        outputs: [Output], manifest: MutantManifest
    ) {
        var nextID = 1
        var outputs: [Output] = []
        var mutants: [Mutant] = []
        for file in files {
            let parsed = Parser.parse(source: file.text)
            let folded = OperatorTable.standardOperators.foldAll(parsed) { _ in }.as(SourceFileSyntax.self) ?? parsed
            let lines: Set<Int>? = options.changedLines.map { $0[file.path] ?? [] }
            let rewriter = SchemataRewriter(
                file: file.path, tree: folded, firstID: nextID, operators: options.operators, lines: lines,
                excluded: options.excluded, conditions: options.conditions)
            let text = rewriter.rewrite(folded).description
            nextID = rewriter.nextID
            guard !rewriter.mutants.isEmpty else { continue }
            let spans = Self.spans(in: text)
            outputs.append(Output(path: file.path, text: text))
            mutants += rewriter.mutants.map { mutant in
                var mutant = mutant
                if let span = spans[mutant.id] { mutant.schemata = span }
                return mutant
            }
        }
        numberOccurrences(&mutants)
        return (outputs, MutantManifest(files: outputs.map(\.path), switchFile: switchFileName, mutants: mutants))
    }

    /// Numbers mutants that share file, context, operator and code, in ID order.
    private static func numberOccurrences(_ mutants: inout [Mutant]) {
        var seen: [String: Int] = [:]
        for index in mutants.indices.sorted(by: { mutants[$0].id < mutants[$1].id }) {
            let mutant = mutants[index]
            let key = "\(mutant.file)|\(mutant.context)|\(mutant.operator)|\(mutant.original)|\(mutant.mutated)"
            seen[key, default: 0] += 1
            mutants[index].occurrence = seen[key]!
        }
        mutants.sort { $0.id < $1.id }
    }

    /// Each mutant's span, from the `/*M7{*/` and `/*}M7*/` markers around its code.
    static func spans(in text: String) -> [Int: Mutant.Span] {
        var starts: [Int: [Int]] = [:]
        var spans: [Int: Mutant.Span] = [:]
        let bytes = Array(text.utf8)
        var line = 1
        var column = 1
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), index + 3 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                var cursor = index + 2
                let opening = bytes[cursor] == UInt8(ascii: "M")
                let closing = bytes[cursor] == UInt8(ascii: "}") && bytes[cursor + 1] == UInt8(ascii: "M")
                if opening || closing {
                    cursor += opening ? 1 : 2
                    var id = 0
                    var digits = 0
                    while cursor < bytes.count, (48...57).contains(bytes[cursor]) {
                        id = id * 10 + Int(bytes[cursor] - 48)
                        cursor += 1
                        digits += 1
                    }
                    if digits > 0 {
                        if opening, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "{") {
                            starts[id] = [line, column]
                        } else if closing, let start = starts[id] {
                            spans[id] = Mutant.Span(start: start, end: [line, column + (cursor - index) + 1])
                        }
                    }
                }
            }
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
        return spans
    }

    /// The switch file for a target with mutants up to `maximumID`: the active mutant from
    /// the environment, and a shared coverage map that the harness reads between rules.
    public static func switchFile(maximumID: Int) -> String {
        """
        // Generated by scheduler-mutator for a mutation run; never committed.
        #if canImport(Glibc)
            import Glibc
        #elseif canImport(Musl)
            import Musl
        #elseif canImport(Darwin)
            import Darwin
        #endif
        import Synchronization

        /// The mutant this process runs: `\(activeVariable)`, 0 (none) when unset.
        @usableFromInline let __schedulerActiveMutant: Int =
            getenv("\(activeVariable)").flatMap { Int(String(cString: $0)) } ?? 0

        /// One byte per mutant in a file shared with the harness (`\(coverageVariable)`),
        /// set when the mutant's code is reached; nil when coverage is not asked for.
        @usableFromInline nonisolated(unsafe) let __schedulerMutantCoverage: UnsafeMutablePointer<UInt8>? = {
            guard let path = getenv("\(coverageVariable)") else { return nil }
            let descriptor = open(path, O_RDWR)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            let mapped = mmap(nil, \(maximumID + 1), PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
            guard let mapped, mapped != MAP_FAILED else { return nil }
            return mapped.assumingMemoryBound(to: UInt8.self)
        }()

        /// Whether mutant `id` is on; notes that its code was reached.
        @usableFromInline @inline(never) func __schedulerMutant(_ id: Int) -> Bool {
            if let coverage = __schedulerMutantCoverage, id <= \(maximumID), coverage[id] == 0 { coverage[id] = 1 }
            return id == __schedulerActiveMutant
        }

        /// How many more times an unguarded section may yield its core inside: enough for any
        /// rule's racing threads to meet it there, too few to slow a rule by more than 0.4 s.
        @usableFromInline let __schedulerMutantNoise = Atomic<Int>(4_096)

        /// A critical section split in two: the state is read under the lock, changed outside
        /// it, and written back under the lock again. In between the thread gives up its core
        /// for 100 µs (the first 4,096 times): the preemption that exposes the missing lock,
        /// which a real machine makes too, only seldom.
        @usableFromInline func __schedulerMutantUnguarded<State, Result>(
            read: () -> State, write: (State) -> Void, _ body: (inout State) throws -> Result
        ) rethrows -> Result {
            var copy = read()
            defer {
                if __schedulerMutantNoise.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 { usleep(100) }
                write(copy)
            }
            return try body(&copy)
        }

        """
    }
}
