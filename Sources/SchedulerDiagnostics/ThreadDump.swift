import Dispatch
import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Subprocess

#if canImport(Runtime)
    import Runtime
#endif

/// Every thread's stack of a live process, taken with gdb: how a hang is diagnosed, in a
/// worker process by its supervisor and in a test's own process by the rule that saw it.
public enum ThreadDump {
    /// The backtraces of all threads of this process, or nil when gdb is not installed,
    /// may not attach (ptrace restrictions), fails, or takes longer than `bound`.
    public static func ofThisProcess(within bound: Duration) -> String? {
        let pid = ProcessInfo.processInfo.processIdentifier
        return runBlocking { await take(pid: pid, within: bound) }
    }

    /// The backtraces of all threads of `pid`, or nil when gdb is not installed, fails, or
    /// takes longer than `bound` (it is then killed: a dump must not stall the watchdog). A
    /// first attempt that fails early is made again once; when neither took the stacks, what
    /// gdb said goes to standard error, for the person reading the run.
    public static func take(pid: Int32, within bound: Duration) async -> String? {
        let deadline = ContinuousClock.now + bound
        var failure = ""
        for attempt in 1...2 {
            let left = deadline - .now
            guard attempt == 1 || left > bound / 2 else { break }
            switch await attach(pid: pid, within: left) {
            case .success(let stacks): return stacks
            case .failure(let said): failure = said.reason
            }
        }
        FileHandle.standardError.write(Data("gdb took no stacks of process \(pid): \(failure)\n".utf8))
        return nil
    }

    /// Why gdb took no stacks, in its words.
    private struct Refusal: Error { let reason: String }

    /// One gdb run on `pid`: its stacks, or why there were none.
    private static func attach(pid: Int32, within bound: Duration) async -> Result<String, Refusal> {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacks-\(pid)-\(UInt32.random(in: 0 ... .max)).txt")
        defer { try? FileManager.default.removeItem(at: log) }
        // gdb stops every thread of the process it attaches to. When that is this process,
        // nothing here may wait on gdb: its output goes to a file, not a pipe this process
        // would have to drain, and `timeout`, a process of its own, bounds it. It attaches
        // once logging is on, so that a refusal to attach is in the file too.
        let seconds = String(format: "%.0f", max(1, bound.timeInterval.rounded(.up)))
        let result = try? await Subprocess.run(
            .name("timeout"),
            arguments: [
                "--kill-after=2", seconds, "gdb", "-batch", "-nx", "-q",
                "-ex", "set logging file \(log.path)", "-ex", "set logging redirect on", "-ex",
                "set logging overwrite on",
                "-ex", "set logging enabled on", "-ex", "attach \(pid)", "-ex", "thread apply all bt 30",
            ],
            output: .discarded,
            error: .discarded
        )
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard let result, result.terminationStatus.isSuccess, text.contains("Thread") else {
            let said = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.suffix(3).joined(separator: " / ")
            let status = result.map { "\($0.terminationStatus)" } ?? "gdb or timeout could not be run"
            return .failure(Refusal(reason: "\(status)\(said.isEmpty ? "" : ": \(said)")"))
        }
        // The dump is for people: keep the thread headers and frames, drop gdb's chatter.
        let stacks = text.split(separator: "\n").filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.joined(
            separator: "\n")
        return .success(await demangled(stacks))
    }

    /// The crashing thread's stack of `executable arguments`, run again under gdb until it
    /// dies, as `Thread 1 (LWP 0):` and its innermost `frames`, with gdb's line naming the
    /// signal first; nil without gdb, when it did not crash again within `bound`, or when
    /// gdb failed. For a death that left nothing to read (a stack overflow on a thread with
    /// no alternate signal stack kills before the runtime's backtracer can say a word).
    public static func ofCrash(
        executable: String, arguments: [String], environment: [String: String], within bound: Duration,
        frames: Int = 40
    ) async -> String? {
        var env = Environment.inherit
        for (key, value) in environment { env = env.updating([.init(rawValue: key)!: value]) }
        let seconds = String(format: "%.0f", max(1, bound.timeInterval.rounded(.up)))
        let result = try? await Subprocess.run(
            .name("timeout"),
            arguments: .init(
                [
                    "--kill-after=2", seconds, "gdb", "-batch", "-nx", "-q", "-ex", "set pagination off",
                    // The backtracer would catch the signal first (and need the stack it lacks).
                    "-ex", "set environment SWIFT_BACKTRACE=enable=no", "-ex", "run", "-ex", "bt \(frames)",
                    "--args", executable,
                ] + arguments),
            environment: env, output: .string(limit: 1 << 24), error: .discarded)
        guard let text = result?.standardOutput,
            // `Thread 8 "name" received signal SIGSEGV, Segmentation fault.`
            let signal = text.split(separator: "\n").first(where: { $0.contains(" received signal ") })
        else { return nil }
        let frames = text.split(separator: "\n").filter { $0.hasPrefix("#") }
        guard !frames.isEmpty else { return nil }
        return await demangled(
            ([String(signal), "Thread 1 (LWP 0):"] + frames.map(String.init)).joined(separator: "\n"))
    }

    /// `stacks` with Swift's mangled names (gdb prints `$s10Schedulers…`) spelled as in the
    /// source: in this process by the runtime's demangler where the `Runtime` module is
    /// there (a child `swift-demangle` under a loaded sanitizer run outlasted its bound), else
    /// by the toolchain's `swift-demangle`; unchanged when neither is.
    package static func demangled(_ stacks: String) async -> String {
        #if canImport(Runtime)
            if #available(macOS 26, *) {
                return stacks.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.split(separator: " ", omittingEmptySubsequences: false).map { word in
                        guard word.hasPrefix("$s") || word.hasPrefix("_$s") else { return String(word) }
                        return SymbolicatedBacktrace.Symbol(
                            imageIndex: 0, imageName: "", rawName: String(word), offset: 0, sourceLocation: nil
                        ).name
                    }.joined(separator: " ")
                }.joined(separator: "\n")
            }
        #endif
        let result = try? await Subprocess.run(
            .name("timeout"), arguments: ["10", "swift-demangle", "--simplified"], input: .string(stacks),
            output: .string(limit: 1 << 24), error: .discarded)
        guard let result, result.terminationStatus.isSuccess, !result.standardOutput.isEmpty else { return stacks }
        let text = result.standardOutput
        return text.hasSuffix("\n") && !stacks.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
