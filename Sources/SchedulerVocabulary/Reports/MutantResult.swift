import Foundation

extension MutationReport {
    /// One mutant, where it is and what became of it.
    public struct MutantResult: Codable, Sendable, Equatable {
        public var id: Int
        /// Relative to the target's folder.
        public var file: String
        public var line: Int
        public var column: Int
        public var `operator`: String
        public var context: String
        public var original: String
        public var mutated: String
        public var occurrence: Int
        public var verdict: Verdict
        /// The first trial that killed it.
        public var killedBy: Trial?
        public var kill: Kill?
        /// Every pair that ran with it on, in order: its row of the kill matrix.
        public var trials: [Trial]
        /// The reason a person gave for declaring it equivalent, if one did; with a
        /// `killed` verdict the declaration is wrong and the report says so.
        public var declaredEquivalent: String?
        public var seconds: Double

        public init(
            id: Int, file: String, line: Int, column: Int, operator: String, context: String, original: String,
            mutated: String, occurrence: Int, verdict: Verdict, killedBy: Trial? = nil, trials: [Trial] = [],
            declaredEquivalent: String? = nil, seconds: Double = 0
        ) {
            self.id = id
            self.file = file
            self.line = line
            self.column = column
            self.operator = `operator`
            self.context = context
            self.original = original
            self.mutated = mutated
            self.occurrence = occurrence
            self.verdict = verdict
            self.killedBy = killedBy
            self.kill = killedBy?.kill
            self.trials = trials
            self.declaredEquivalent = declaredEquivalent
            self.seconds = seconds
        }

        /// The key an equivalence declaration names.
        public var key: MutantKey {
            MutantKey(
                file: file, context: context, operator: `operator`, original: original, mutated: mutated,
                occurrence: occurrence)
        }

        /// `original → mutated`, as one line.
        public var change: String {
            switch (original.isEmpty, mutated.isEmpty) {
            case (true, _): "insert `\(mutated)`"
            case (_, true): "remove `\(original)`"
            default: "`\(original)` → `\(mutated)`"
            }
        }
    }
}
