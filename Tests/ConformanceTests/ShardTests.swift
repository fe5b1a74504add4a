import Foundation
import TestSupport
import Testing

@testable import SchedulerConformance
@testable import SchedulerVocabulary

/// Sharding partitions runs the same way on every machine, reads Bazel's environment, and
/// refuses what is not one split.
@Suite struct ShardTests {
    static let ids = (0..<400).map { Shard.pairID("subject-\($0 % 20)", "RULE-\($0)") }

    @Test(arguments: [1, 2, 3, 7])
    func shardsPartitionEveryPairExactlyOnce(_ total: Int) throws {
        let shards = try (0..<total).map { try Shard(index: $0, total: total) }
        for id in Self.ids {
            #expect(shards.filter { $0.contains(id) }.count == 1, "\(id)")
        }
        // Not lopsided: each of `total` shards takes a fair share of 400 pairs.
        for shard in shards {
            #expect(Self.ids.filter(shard.contains).count > 400 / total / 2, "\(shard)")
        }
    }

    @Test func theHashIsFNV1aAndSoTheSameEverywhere() throws {
        // FNV-1a 64 of "a" and of "foobar", from the algorithm's published test vectors.
        #expect(Shard.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(Shard.stableHash("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test func flagsWinAndTheEnvironmentIsBazels() throws {
        let folder = try ScratchFolder.make("shard")
        let status = folder.appendingPathComponent("status").path
        let bazel = ["TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "3", "TEST_SHARD_STATUS_FILE": status]
        #expect(try Shard.resolve(totalShards: nil, shardIndex: nil, environment: [:]) == nil)
        #expect(try Shard.resolve(totalShards: 2, shardIndex: 1, environment: bazel) == Shard(index: 1, total: 2))
        #expect(!FileManager.default.fileExists(atPath: status), "flags do not speak for Bazel")
        #expect(try Shard.resolve(totalShards: nil, shardIndex: nil, environment: bazel) == Shard(index: 3, total: 4))
        #expect(FileManager.default.fileExists(atPath: status))
    }

    @Test(
        arguments: [
            (2, nil, [String: String]()), (nil, 0, [:]), (2, 2, [:]), (0, 0, [:]), (2, -1, [:]),
            (nil, nil, ["TEST_TOTAL_SHARDS": "two", "TEST_SHARD_INDEX": "0"]), (nil, nil, ["TEST_TOTAL_SHARDS": "2"]),
            (
                nil, nil,
                ["TEST_TOTAL_SHARDS": "2", "TEST_SHARD_INDEX": "0", "TEST_SHARD_STATUS_FILE": "/proc/no/such/status"]
            ),
        ] as [(Int?, Int?, [String: String])])
    func badShardsAreTypedErrors(_ total: Int?, _ index: Int?, _ environment: [String: String]) {
        #expect(throws: ShardError.self) {
            try Shard.resolve(totalShards: total, shardIndex: index, environment: environment)
        }
    }

    @Test func aShardReadFromAReportIsCheckedLikeOneFromTheCommandLine() throws {
        #expect(
            try JSONDecoder().decode(Shard.self, from: Data(#"{"index":1,"total":2}"#.utf8))
                == Shard(index: 1, total: 2))
        for bad in [#"{"index":2,"total":2}"#, #"{"index":0,"total":-1}"#, #"{"index":0,"total":0}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode(Shard.self, from: Data(bad.utf8)) }
        }
    }

    @Test func onlyEveryShardOfOneSplitExactlyOnceIsComplete() throws {
        let a = try Shard(index: 0, total: 2)
        let b = try Shard(index: 1, total: 2)
        let c = try Shard(index: 0, total: 3)
        #expect(throws: Never.self) { try Shard.checkComplete([b, a]) }
        #expect(throws: Never.self) { try Shard.checkComplete([nil]) }
        for bad: [Shard?] in [[a], [a, a, b], [a, c], [a, nil], [nil, nil], []] {
            #expect(throws: ShardError.self, "\(bad)") { try Shard.checkComplete(bad) }
        }
    }
}
