import ArgumentParser
import CommandSupport
import Foundation
import SchedulerProbes
import SchedulerStress
import SchedulerVocabulary
import Schedulers
import Synchronization

extension StressCommand {
    /// Counts the reference library's hot paths under callgrind and gates on the committed
    /// counts: a regression gate that a noisy, shared machine cannot fool.
    struct Instructions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count instructions and allocations per operation of the hot paths under callgrind.",
            discussion: """
                Each path runs in a child process under `valgrind --tool=callgrind`, --repeats times \
                with --operations/10 operations and as often with that many more; the difference of \
                the medians over the operations between is the cost per operation, every thread's \
                instructions included, counted only inside the measured region (no start-up). \
                Instruction counts do not move with the machine's load, so the gate is tight: a path \
                more than --tolerance over its committed instructions per operation, or with more \
                allocations, is a regression. The counts are committed per toolchain \
                (--baselines); --update-baselines writes this toolchain's. Writes instructions.json \
                to --report-dir (atomically). Needs valgrind (Debian: `apt install valgrind`) and a \
                release build. Exit status: 0 no regression (or no committed counts for this \
                toolchain, said so), 1 a path failed or valgrind is missing, 10 regression, 64 bad usage.
                """
        )

        @Option(help: "Comma-separated paths; default: every one (see --list).")
        var paths: [String] = []

        @Flag(help: "List the paths and exit.")
        var list = false

        @Option(help: "Operations counted per path (the difference between the two runs).")
        var operations = 10_000

        // Three, not five: each path's median moved by the same 0.8 % at most between runs
        // either way (queue-schedule-run 1380-1391, queue-recursive-step 2360-2372), in 53 s
        // instead of 86 s; a run that pays one wake-up more is outvoted by the other two.
        @Option(help: "Runs of each count, of which the median is taken.")
        var repeats = 3

        @Option(
            help:
                """
                Children under callgrind at once; default: the machine's cores. Each counts its own process only, so \
                they do not disturb one another's counts.
                """
        )
        var jobs: Int?

        @Option(help: "The committed counts (JSON).")
        var baselines = "Stress/instruction-baselines.json"

        @Flag(help: "Write this run's counts to --baselines as this toolchain's, instead of judging.")
        var updateBaselines = false

        @Option(help: "The growth of instructions per operation that is a regression, in percent.")
        var tolerance = 3.0

        @Option(help: "The toolchain the counts are for; default: `swift --version`'s first line and the machine.")
        var toolchain: String?

        @Option(help: "Where instructions.json goes.")
        var reportDir = "Reports"

        mutating func validate() throws {
            guard (1_000...10_000_000).contains(operations) else {
                throw ValidationError("--operations must be between 1000 and 10000000, got \(operations)")
            }
            guard (1...99).contains(repeats) else {
                throw ValidationError("--repeats must be between 1 and 99, got \(repeats)")
            }
            if let jobs, !(1...64).contains(jobs) {
                throw ValidationError("--jobs must be between 1 and 64, got \(jobs)")
            }
            guard tolerance.isFinite, tolerance >= 0, tolerance <= 100 else {
                throw ValidationError("--tolerance must be between 0 and 100 percent, got \(tolerance)")
            }
            if toolchain?.trimmingCharacters(in: .whitespaces).isEmpty == true {
                throw ValidationError("--toolchain must not be empty")
            }
            _ = try selected()
            if !list { try ReportFiles.prepare(URL(fileURLWithPath: reportDir)) }
        }

        /// The paths asked for, in catalogue order.
        private func selected() throws -> [HotPath] {
            let names = Set(splitList(paths))
            if paths.isEmpty { return HotPath.allCases }
            guard !names.isEmpty else { throw ValidationError("--paths is empty") }
            let unknown = names.subtracting(HotPath.allCases.map(\.rawValue))
            guard unknown.isEmpty else {
                throw ValidationError(
                    """
                    unknown path \(unknown.sorted().joined(separator: ", ")); known: \
                    \(HotPath.allCases.map(\.rawValue).joined(separator: ", "))
                    """
                )
            }
            return HotPath.allCases.filter { names.contains($0.rawValue) }
        }

        func run() throws {
            let chosen = try selected()
            if list {
                for path in chosen {
                    print("\(path.rawValue.padding(toLength: 32, withPad: " ", startingAt: 0))\(path.summary)")
                }
                return
            }
            guard let valgrind = Self.executable(named: "valgrind") else {
                print("error: valgrind is not installed (Debian: apt install valgrind)")
                throw ExitCode(StressExit.failed)
            }
            let toolchain = try toolchain ?? Self.currentToolchain()
            let program = try Self.withoutDebugInformation()
            defer { try? FileManager.default.removeItem(atPath: program) }
            let fewer = max(100, operations / 10)
            // The median of several runs: a path with threads has a few interleavings, and now
            // and then one costs a wake-up more.
            let runs = chosen.flatMap { path in
                [fewer, fewer + operations].flatMap { count in repeatElement((path, count), count: repeats) }
            }
            let counted = try Self.count(
                runs, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, program: program, valgrind: valgrind)
            let costs = chosen.map { path in
                let counts = [fewer, fewer + operations].map { count in
                    CallgrindCount.median(runs.indices.filter { runs[$0] == (path, count) }.map { counted[$0] })
                }
                return (path, PathCost.perOperation(fewer: counts[0], more: counts[1], operations: operations))
            }
            var committed = try Self.readBaselines(baselines)
            let report = InstructionReport(
                toolchain: toolchain, operations: [fewer, fewer + operations], tolerance: tolerance / 100,
                costs: costs, baseline: updateBaselines ? nil : committed.toolchains[toolchain])
            print(report.table)
            let file = URL(fileURLWithPath: reportDir).appendingPathComponent("instructions.json")
            try report.jsonData().write(to: file, options: .atomic)
            print("report: \(file.path)")
            if updateBaselines {
                committed.toolchains[toolchain, default: [:]].merge(costs.map { ($0.0.rawValue, $0.1) }) { _, new in new
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(committed).write(to: URL(fileURLWithPath: baselines), options: .atomic)
                print("baselines for \(toolchain) written to \(baselines)")
                return
            }
            guard committed.toolchains[toolchain] != nil else {
                print(
                    """
                    no committed counts for \(toolchain) in \(baselines): nothing judged (--update-baselines writes \
                    them)
                    """
                )
                return
            }
            let regressions = report.regressions
            guard regressions.isEmpty else {
                print("regression over \(tolerance)%:\n" + regressions.map { "  " + $0 }.joined(separator: "\n"))
                throw ExitCode(StressExit.regression)
            }
            print("no regression over \(tolerance)% against the counts committed for \(toolchain)")
        }

        /// A copy of this executable without its DWARF: the valgrind of Debian 12 (3.19) gives up
        /// on the DWARF 5 that Swift 6 writes ("possibly corrupted debuginfo"). The symbol
        /// table stays, and nothing else changes.
        private static func withoutDebugInformation() throws -> String {
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString)").path
            guard let status = try tool("strip", ["--strip-debug", "-o", copy, CommandLine.arguments[0]])?.status else {
                throw InstructionFailure.failed("`strip` (binutils) is needed to run this executable under valgrind")
            }
            guard status == 0 else {
                throw InstructionFailure.failed("`strip --strip-debug` failed on \(CommandLine.arguments[0])")
            }
            return copy
        }

        /// Every run of `runs` (a path and its operations), `jobs` children at a time, and their
        /// totals in the same order; the first failure once all are done. Callgrind counts one
        /// process's instructions whatever runs beside it, and each run is mostly valgrind
        /// loading the runtime, which one at a time would take minutes.
        private static func count(_ runs: [(HotPath, Int)], jobs: Int, program: String, valgrind: String) throws
            -> [CallgrindCount]
        {
            let results = Lock<[Result<CallgrindCount, any Error>?]>(Array(repeating: nil, count: runs.count))
            let next = Atomic<Int>(0)
            // Each child has its own 600-second deadline, so the threads end.
            _ = Threads.run(min(jobs, runs.count), within: .seconds(86_400)) { _ in
                while case let index = next.wrappingAdd(1, ordering: .relaxed).oldValue, index < runs.count {
                    let result = Result {
                        try count(runs[index].0, operations: runs[index].1, program: program, valgrind: valgrind)
                    }
                    results.withLock { $0[index] = result }
                }
            }
            return try results.withLock { $0 }.map { result in
                guard let result else { throw InstructionFailure.failed("a run under callgrind never finished") }
                return try result.get()
            }
        }

        /// One run of `path` under callgrind in a child process, and its totals.
        private static func count(_ path: HotPath, operations: Int, program: String, valgrind: String) throws
            -> CallgrindCount
        {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent(
                "callgrind-\(path.rawValue)-\(operations)-\(UUID().uuidString).out")
            // The first dump, when the measured region returns; the whole run's at exit.
            let region = URL(fileURLWithPath: output.path + ".1")
            defer {
                try? FileManager.default.removeItem(at: output)
                try? FileManager.default.removeItem(at: region)
            }
            let deadline = ContinuousClock.now + .seconds(600)
            let exit = runBlocking {
                await WorkerProcess.run(
                    executable: valgrind,
                    arguments: [
                        "--tool=callgrind", "--callgrind-out-file=\(output.path)", "--compress-strings=no",
                        "--compress-pos=no", "--zero-before=\(HotPath.measuredRegion)",
                        "--dump-after=\(HotPath.measuredRegion)", "--quiet", program, "measure-path", "--path",
                        path.rawValue,
                        "--operations", String(operations),
                    ],
                    // The counts are the program's own: no backtracer, no other allocator.
                    environment: ["SWIFT_BACKTRACE": "enable=no", "LD_PRELOAD": ""],
                    onLine: { _ in }, deadline: { deadline })
            }
            guard exit.succeeded else {
                throw InstructionFailure.failed("\(path.rawValue) under callgrind: \(exit.crashReason)")
            }
            do {
                return try CallgrindCount(callgrindOutput: String(contentsOf: region, encoding: .utf8))
            } catch {
                throw InstructionFailure.failed("\(path.rawValue): \(error)")
            }
        }

        private static func readBaselines(_ path: String) throws -> InstructionBaselines {
            guard FileManager.default.fileExists(atPath: path) else { return InstructionBaselines() }
            return try ReportFiles.read(InstructionBaselines.self, at: path, what: "the committed instruction counts")
        }

        /// `swift --version`'s first line and the machine, e.g. `Swift version 6.3.1 (…) x86_64`.
        private static func currentToolchain() throws -> String {
            guard let output = try tool("swift", ["--version"])?.output else {
                throw ValidationError("no `swift` on PATH to name the toolchain: pass --toolchain")
            }
            let first = output.split(separator: "\n").first.map(String.init) ?? "swift"
            var machine = utsname()
            uname(&machine)
            let architecture = withUnsafeBytes(of: &machine.machine) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            return "\(first) \(architecture)"
        }

        /// Runs the program called `name` on PATH with `arguments` to its end: its exit status
        /// and standard output; nil when there is no such program.
        private static func tool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String)? {
            guard let path = executable(named: name) else { return nil }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        /// The first executable called `name` on PATH.
        private static func executable(named name: String) -> String? {
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
    }

}
