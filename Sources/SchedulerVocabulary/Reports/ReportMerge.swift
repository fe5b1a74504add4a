/// Why reports could not be merged into one.
public enum MergeError: Error, Equatable, CustomStringConvertible {
    /// The reports are not parts of one run: another format, selection or commit, or not
    /// every shard exactly once.
    case notOneRun(String)

    public var description: String {
        switch self {
        case .notOneRun(let message): message
        }
    }
}

/// Checks what every merge needs: at least one report, one format, one commit (or none
/// known for all), one build (sanitizer or not), and the shards of one split, each exactly once.
package func checkOneRun(schemaVersions: [Int], commits: [String?], sanitizers: [String?], shards: [Shard?])
    throws(MergeError)
{
    guard !schemaVersions.isEmpty else { throw .notOneRun("no reports to merge") }
    guard Set(schemaVersions).count == 1 else {
        throw .notOneRun("the reports have different schema versions: \(Set(schemaVersions).sorted())")
    }
    guard Set(commits).count == 1 else {
        throw .notOneRun(
            "the reports were made from different commits: \(commits.map { $0 ?? "unknown" }.joined(separator: ", "))")
    }
    guard Set(sanitizers).count == 1 else {
        throw .notOneRun("some reports come from a sanitizer build and some do not")
    }
    do { try Shard.checkComplete(shards) } catch { throw .notOneRun(error.description) }
}

/// Positions of `names` in order, the first occurrence winning (a report file may repeat one).
package func positions<Name: Hashable>(_ names: [Name]) -> [Name: Int] {
    Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
}
