import Foundation

/// One part of a run split across machines: the conformance run partitions rule × subject,
/// the stress run scenario × subject, each pair by a hash of its stable ID, so every shard
/// of the same selection takes the same pairs on any machine.
///
/// The numbering is Bazel's test sharding (`TEST_TOTAL_SHARDS`, `TEST_SHARD_INDEX`, from 0),
/// which gtest-style runners use as well.
public struct Shard: Codable, Sendable, Equatable, CustomStringConvertible {
    /// This shard's number, from 0.
    public var index: Int
    /// How many shards the run is split into.
    public var total: Int

    /// Shard `index` of `total`.
    /// - Throws: ``ShardError/invalid(_:)`` unless `0 <= index < total`.
    public init(index: Int, total: Int) throws(ShardError) {
        guard total >= 1, total <= 100_000 else {
            throw .invalid("the total number of shards must be between 1 and 100000, got \(total)")
        }
        guard (0..<total).contains(index) else {
            throw .invalid("the shard index must be between 0 and \(total - 1), got \(index)")
        }
        self.index = index
        self.total = total
    }

    /// Whether the pair with stable ID `id` (such as `queue/ORD-1`) belongs to this shard.
    public func contains(_ id: String) -> Bool {
        Int(Self.stableHash(id) % UInt64(total)) == index
    }

    public var description: String { "shard \(index + 1) of \(total)" }

    /// Reads a shard from a report, with the same checks as ``init(index:total:)``: a
    /// report file is input like any other.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                index: container.decode(Int.self, forKey: .index), total: container.decode(Int.self, forKey: .total))
        } catch let error as ShardError {
            throw DecodingError.dataCorruptedError(forKey: .index, in: container, debugDescription: error.description)
        }
    }

    private enum CodingKeys: String, CodingKey { case index, total }

    /// The pair ID both commands partition by: `subject/rule` or `scenario/subject`.
    public static func pairID(_ first: String, _ second: String) -> String { first + "/" + second }

    /// FNV-1a over the UTF-8 bytes: the same on every machine and in every process, which
    /// Swift's seeded `Hasher` is not. Written by hand: it is five lines and no package here
    /// offers a stable string hash.
    static func stableHash(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The shard to run: `--total-shards`/`--shard-index` when given, else Bazel's
    /// `TEST_TOTAL_SHARDS`/`TEST_SHARD_INDEX` from `environment`; nil when neither asks for
    /// sharding. When it comes from the environment, the file named by
    /// `TEST_SHARD_STATUS_FILE` is touched, which tells Bazel the runner honours sharding.
    /// - Throws: ``ShardError`` for half a pair, a value that is not a number, an index out of
    ///   range, or a status file that cannot be written.
    public static func resolve(totalShards: Int?, shardIndex: Int?, environment: [String: String]) throws(ShardError)
        -> Shard?
    {
        switch (totalShards, shardIndex) {
        case (let total?, let index?):
            return try Shard(index: index, total: total)
        case (.some, nil), (nil, .some):
            throw .invalid("--total-shards and --shard-index go together")
        case (nil, nil):
            break
        }
        guard let totalText = environment["TEST_TOTAL_SHARDS"], !totalText.isEmpty else { return nil }
        guard let total = Int(totalText) else {
            throw .invalid("TEST_TOTAL_SHARDS must be a number, got '\(totalText)'")
        }
        let indexText = environment["TEST_SHARD_INDEX"] ?? ""
        guard let index = Int(indexText) else {
            throw .invalid("TEST_SHARD_INDEX must be a number when TEST_TOTAL_SHARDS is set, got '\(indexText)'")
        }
        let shard = try Shard(index: index, total: total)
        if let status = environment["TEST_SHARD_STATUS_FILE"], !status.isEmpty {
            let url = URL(fileURLWithPath: status)
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw .invalid("cannot write TEST_SHARD_STATUS_FILE '\(status)'")
                }
            }
        }
        return shard
    }

    /// Checks that `shards` are every shard of one split exactly once: what a merge needs to
    /// equal the unsharded run. Reports without a shard count as a whole run.
    /// - Throws: ``ShardError/incomplete(_:)`` naming what is missing, doubled or mixed.
    public static func checkComplete(_ shards: [Shard?]) throws(ShardError) {
        guard !shards.isEmpty else { throw .incomplete("no reports") }
        let sharded = shards.compactMap { $0 }
        if sharded.isEmpty {
            guard shards.count == 1 else {
                throw .incomplete("\(shards.count) unsharded reports: each already holds the whole run")
            }
            return
        }
        guard sharded.count == shards.count else {
            throw .incomplete("a sharded report and an unsharded one cannot be merged")
        }
        let totals = Set(sharded.map(\.total))
        guard totals.count == 1, let total = totals.first else {
            throw .incomplete("the reports come from splits into different numbers of shards: \(totals.sorted())")
        }
        let indices = sharded.map(\.index)
        let doubled = Set(indices.filter { index in indices.filter { $0 == index }.count > 1 }).sorted()
        guard doubled.isEmpty else {
            throw .incomplete("shard \(doubled.map { "\($0)" }.joined(separator: ", ")) given more than once")
        }
        let missing = Set(0..<total).subtracting(indices).sorted()
        guard missing.isEmpty else {
            throw .incomplete(
                "missing shard \(missing.map { "\($0)" }.joined(separator: ", ")) of \(total) (indices from 0)")
        }
    }
}

/// Why a shard could not be chosen or reports could not be merged.
public enum ShardError: Error, Equatable, CustomStringConvertible {
    /// A bad flag, environment variable or status file.
    case invalid(String)
    /// Reports that are not every shard of one split exactly once.
    case incomplete(String)

    public var description: String {
        switch self {
        case .invalid(let message), .incomplete(let message): message
        }
    }
}
