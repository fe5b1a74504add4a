import Foundation
import SchedulerVocabulary

/// What one hot path costs per operation, counted by callgrind: instructions executed (every
/// thread's) and allocation calls.
public struct PathCost: Codable, Equatable, Sendable {
    /// Instructions per operation.
    public var instructions: Double
    /// Calls to the C allocator (`malloc` and its kin) per operation.
    public var allocations: Double

    /// A cost of `instructions` and `allocations` per operation.
    public init(instructions: Double, allocations: Double) {
        self.instructions = instructions
        self.allocations = allocations
    }

    /// The cost per operation between a run of `fewer` operations and one of `more`: their
    /// difference over the operations between, so what both runs pay once (start-up, the
    /// first call's lazy set-up) cancels out.
    public static func perOperation(fewer: CallgrindCount, more: CallgrindCount, operations: Int) -> PathCost {
        PathCost(
            instructions: Double(more.instructions - fewer.instructions) / Double(operations),
            allocations: Double(more.allocations - fewer.allocations) / Double(operations))
    }
}

/// The totals of one callgrind output file (`--compress-strings=no`).
public struct CallgrindCount: Equatable, Sendable {
    /// Instructions executed, every thread's.
    public var instructions: Int
    /// Calls to `malloc`, `calloc`, `realloc`, `posix_memalign`, `aligned_alloc` and `memalign`.
    public var allocations: Int

    /// Totals of `instructions` and `allocations`.
    public init(instructions: Int, allocations: Int) {
        self.instructions = instructions
        self.allocations = allocations
    }

    /// The median instructions and the median allocations of `counts` (not empty).
    public static func median(_ counts: [CallgrindCount]) -> CallgrindCount {
        func middle(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        return CallgrindCount(
            instructions: middle(counts.map(\.instructions)), allocations: middle(counts.map(\.allocations)))
    }

    /// The allocator's entry points whose calls count as allocations.
    static let allocators: Set<Substring> = [
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign",
    ]

    /// Reads a callgrind output file's text.
    /// - Throws: ``StressFailure`` when it has no `summary:` (or `totals:`) line.
    public init(callgrindOutput text: String) throws(StressFailure) {
        var total: Int?
        var allocations = 0
        var callee: Substring?
        // Compressed names: `(12) malloc` the first time, `(12)` after.
        var names: [Substring: Substring] = [:]
        func name(_ spec: Substring) -> Substring {
            guard spec.hasPrefix("("), let close = spec.firstIndex(of: ")") else { return spec }
            let id = spec[...close]
            let rest = spec[spec.index(after: close)...].drop { $0 == " " }
            if !rest.isEmpty { names[id] = rest }
            return names[id] ?? rest
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("summary:") || (total == nil && line.hasPrefix("totals:")) {
                total = Int(line.split(separator: " ").last ?? "")
            } else if line.hasPrefix("fn=") {
                _ = name(line.dropFirst(3))
            } else if line.hasPrefix("cfn=") {
                callee = name(line.dropFirst(4))
            } else if line.hasPrefix("calls="), let called = callee {
                if Self.allocators.contains(called), let count = Int(line.dropFirst(6).prefix { $0.isNumber }) {
                    allocations += count
                }
                callee = nil
            }
        }
        guard let total else { throw StressFailure("callgrind's output has no summary line") }
        self.instructions = total
        self.allocations = allocations
    }
}

/// The committed instruction counts per toolchain that `stress instructions` gates on:
/// counts differ from one compiler (and Dispatch) to the next, never from run to run.
public struct InstructionBaselines: Codable, Equatable, Sendable {
    /// Per toolchain (`swift --version`'s first line and the architecture), each path's cost.
    public var toolchains: [String: [String: PathCost]]

    /// Baselines for `toolchains`.
    public init(toolchains: [String: [String: PathCost]] = [:]) { self.toolchains = toolchains }
}

/// One run of `stress instructions`: each path's cost, against the committed baseline for
/// this toolchain, and which paths regressed.
public struct InstructionReport: Codable, Equatable, Sendable {
    /// One hot path's result.
    public struct Entry: Codable, Equatable, Sendable {
        /// The path's name (``HotPath``'s raw value).
        public var path: String
        /// What one operation is.
        public var summary: String
        /// What it cost per operation in this run.
        public var cost: PathCost
        /// The committed cost for this toolchain, if any.
        public var baseline: PathCost?
        /// Instructions per operation over the committed ones, less one (0.02 is 2 % more).
        public var change: Double?
        /// Instructions per operation over those of the bare path it is compared with
        /// (``HotPath/baseline``), measured in the same run.
        public var ratioToBare: Double?
        /// Whether it costs more than the committed baseline allows.
        public var regressed: Bool
    }

    /// The toolchain the counts are for.
    public var toolchain: String
    /// Operations in the two runs whose difference is counted.
    public var operations: [Int]
    /// The growth in instructions per operation that is a regression (0.03 is 3 %).
    public var tolerance: Double
    /// Every path measured, in order.
    public var paths: [Entry]

    /// The paths that regressed, with what changed: nothing when the run passes.
    public var regressions: [String] {
        paths.filter(\.regressed).map { entry in
            let baseline = entry.baseline!
            return
                """
                \(entry.path): \(Self.format(entry.cost.instructions)) instructions and \
                \(Self.format(entry.cost.allocations)) allocations per operation, committed \
                \(Self.format(baseline.instructions)) and \(Self.format(baseline.allocations))
                """
        }
    }

    /// Judges `costs` (in ``HotPath`` order) against `baseline`, the committed costs for this
    /// toolchain (nil when none were committed: nothing can regress then).
    public init(
        toolchain: String, operations: [Int], tolerance: Double, costs: [(HotPath, PathCost)],
        baseline: [String: PathCost]?
    ) {
        self.toolchain = toolchain
        self.operations = operations
        self.tolerance = tolerance
        let byPath = Dictionary(costs.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        paths = costs.map { path, cost in
            let committed = baseline?[path.rawValue]
            let change = committed.map { cost.instructions / $0.instructions - 1 }
            // An allocation is a whole call: a few hundredths of one per operation are a
            // thread's interleaving (a Dispatch continuation cache refilled or not), a quarter
            // is a new allocation on some path.
            // A bare path is the yardstick, not this package's code: its count moves with
            // Dispatch's and the runtime's own caches, by more than this package's paths do,
            // and no change here can regress it. A path on a concurrent queue moves too much.
            let regressed =
                path.isGated
                && committed.map {
                    cost.instructions > $0.instructions * (1 + tolerance) || cost.allocations > $0.allocations + 0.25
                } ?? false
            return Entry(
                path: path.rawValue, summary: path.summary, cost: cost, baseline: committed, change: change,
                ratioToBare: path.baseline.flatMap { byPath[$0] }.map { cost.instructions / $0.instructions },
                regressed: regressed)
        }
    }

    /// The report as a table for the terminal.
    public var table: String {
        let header = "path                            instructions/op  allocations/op  committed   change      ×bare"
        let rows = paths.map { entry in
            [
                entry.path.padding(toLength: 32, withPad: " ", startingAt: 0),
                Self.format(entry.cost.instructions).leftPadded(15),
                Self.format(entry.cost.allocations).leftPadded(16),
                (entry.baseline.map { Self.format($0.instructions) } ?? "-").leftPadded(11),
                (entry.change.map { String(format: "%+.1f%%", $0 * 100) } ?? "-").leftPadded(9),
                (entry.ratioToBare.map { String(format: "%.2f", $0) } ?? "").leftPadded(11),
                entry.regressed ? "  REGRESSED" : "",
            ].joined()
        }
        return ([header] + rows).joined(separator: "\n")
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The report as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
