import Foundation

/// What identifies a mutant across edits of its file: not its line, which moves, but its
/// declaration, operator, code and place among its twins.
public struct MutantKey: Codable, Sendable, Hashable {
    public var file: String
    public var context: String
    public var `operator`: String
    public var original: String
    public var mutated: String
    public var occurrence: Int

    public init(file: String, context: String, operator: String, original: String, mutated: String, occurrence: Int) {
        self.file = file
        self.context = context
        self.operator = `operator`
        self.original = original
        self.mutated = mutated
        self.occurrence = occurrence
    }
}
