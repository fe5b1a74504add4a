import Dispatch
import Foundation
import SchedulerConformance
import Schedulers
import Subprocess

/// A child process run under a watchdog: the isolation both the `conformance` and the
/// `stress` commands use, so a hang or a crash in a scheduler becomes a result.
public enum WorkerProcess {
    /// How a worker ended.
    public struct Exit: Sendable {
        /// The exit status, or nil when the process could not be started.
        public var status: TerminationStatus?
        /// Everything the worker wrote to standard error (the last 4 MiB).
        public var standardError: String
        /// Whether the watchdog killed it.
        public var timedOut: Bool
        /// Every thread's stack, taken just before a timeout kill (nil without gdb).
        public var threadDump: String?
        /// Why the process could not be started.
        public var launchError: String?

        /// Whether it exited normally with status 0.
        public var succeeded: Bool { status?.isSuccess == true && !timedOut }

        /// The line of standard error that says why it died (Swift's "Fatal error: …",
        /// "Precondition failed: …"), or its last line.
        public var crashReason: String {
            if let launchError { return launchError }
            let lines = standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            // Swift's traps print "Fatal error: …", "Precondition failed: …" or "Assertion failed: …";
            // the backtrace that follows is in the diagnostics.
            let markers = ["Fatal error", "Precondition failed", "Assertion failed", "Crash", "error:"]
            let reason = markers.lazy.compactMap { marker in lines.first { $0.contains(marker) } }.first ?? lines.last
            return "\(status.map { "\($0)" } ?? "not started"): \(reason ?? "nothing on stderr")"
        }
    }

    /// Runs `executable` with `arguments`, handing each line of its standard output to
    /// `onLine`. Every 100 ms the watchdog asks `deadline` for the current deadline; once it
    /// has passed, it calls `onTimeout` (at once, so the caller can note what was running),
    /// takes a thread dump with gdb and kills the process.
    public static func run(
        executable: String,
        arguments: [String],
        environment: [String: String] = [:],
        onLine: @escaping @Sendable (String) -> Void,
        deadline: @escaping @Sendable () -> ContinuousClock.Instant?,
        onTimeout: @escaping @Sendable () -> Void = {}
    ) async -> Exit {
        let watch = Watch()
        let stderr = TailBuffer(limit: 1 << 22)
        var env = Environment.inherit
        for (key, value) in environment { env = env.updating([.init(rawValue: key)!: value]) }
        do {
            let result = try await Subprocess.run(
                .path(.init(executable)), arguments: .init(arguments), environment: env,
                input: .none, output: .sequence, error: .sequence
            ) { execution in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Output of any size: stderr keeps only its tail, lines have no length limit.
                    group.addTask {
                        for try await line in execution.standardError.strings(bufferingPolicy: .unbounded) {
                            stderr.append(line)
                        }
                    }
                    group.addTask {
                        for try await line in execution.standardOutput.strings(bufferingPolicy: .unbounded) {
                            onLine(line)
                        }
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: .milliseconds(100))
                            guard let due = deadline(), ContinuousClock.now > due else { continue }
                            onTimeout()
                            let stacks = await ThreadDump.take(
                                pid: execution.processIdentifier.value, within: .seconds(20))
                            watch.state.withLock { $0 = (true, stacks) }
                            try? execution.send(signal: .kill)
                            return
                        }
                    }
                    // Standard output ends when the process exits (or is killed); then stop
                    // watching once standard error has been read to its end too.
                    try await group.next()
                    try await group.next()
                    group.cancelAll()
                }
            }
            return Exit(
                status: result.terminationStatus, standardError: stderr.text,
                timedOut: watch.state.withLock { $0.timedOut }, threadDump: watch.state.withLock { $0.dump }
            )
        } catch {
            return Exit(
                status: nil, standardError: "", timedOut: false, threadDump: nil,
                launchError: "could not run the worker: \(error)")
        }
    }
}

/// What the watchdog found, shared between its task and the caller.
private final class Watch: Sendable {
    package let state = Lock<(timedOut: Bool, dump: String?)>((false, nil))
}

/// The last `limit` characters of a stream of lines.
private final class TailBuffer: Sendable {
    private let lines = Lock<(text: [Substring], size: Int)>(([], 0))
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    package func append(_ line: String) {
        lines.withLock { state in
            state.text.append(Substring(line))
            state.size += line.utf8.count + 1
            while state.size > limit, !state.text.isEmpty { state.size -= state.text.removeFirst().utf8.count + 1 }
        }
    }

    package var text: String { lines.withLock { $0.text.joined(separator: "\n") } }
}
