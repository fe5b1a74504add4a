import ArgumentParser
import Foundation
import SchedulerVocabulary

/// `--total-shards` and `--shard-index`, or Bazel's `TEST_TOTAL_SHARDS`/`TEST_SHARD_INDEX`:
/// which part of a run split across machines this one is.
package struct ShardOptions: ParsableArguments {
    @Option(help: "Split the run into this many shards (default: TEST_TOTAL_SHARDS, else none).")
    package var totalShards: Int?

    @Option(help: "Run this shard, from 0 (default: TEST_SHARD_INDEX).")
    package var shardIndex: Int?

    package init() {}

    package func validate() throws {
        _ = try resolve()
    }

    /// The shard to run, or nil for the whole run; touches `TEST_SHARD_STATUS_FILE` when
    /// sharding comes from the environment.
    package func resolve() throws -> Shard? {
        do {
            return try Shard.resolve(
                totalShards: totalShards, shardIndex: shardIndex, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// The reports named on a `merge` command line, read and checked to be of one run.
package enum MergeInput {
    /// Reads each of `paths` as a `T` report (`what` names it in errors).
    package static func read<T: Decodable>(_ type: T.Type, paths: [String], what: String) throws -> [T] {
        guard !paths.isEmpty else { throw ValidationError("name the shards' \(what) reports to merge") }
        return try paths.map { try ReportFiles.read(type, at: $0, what: what) }
    }

    /// Runs `merge`, turning a ``MergeError`` into one line and the usage exit code.
    package static func merge<T>(_ merge: () throws(MergeError) -> T) throws -> T {
        do { return try merge() } catch { throw ValidationError("cannot merge: \(error.description)") }
    }
}
