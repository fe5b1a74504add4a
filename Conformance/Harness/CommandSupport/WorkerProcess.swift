import Dispatch
import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Subprocess
import Synchronization

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
        /// Every thread's stack, taken just before a timeout or memory kill (nil without gdb).
        public var threadDump: String?
        /// The resident memory, in bytes, past which the watchdog killed it; nil when it
        /// stayed under its cap.
        public var outgrew: UInt64?
        /// Why the process could not be started.
        public var launchError: String?

        /// Whether it exited normally with status 0.
        public var succeeded: Bool { status?.isSuccess == true && !timedOut }

        /// Why it died: the exit status, then the runtime's fatal message and the first frame
        /// of the subject's code (``CrashDiagnosis``), or standard error's last line.
        public var crashReason: String {
            if let launchError { return launchError }
            let reason =
                CrashDiagnosis(standardError: standardError).summary
                ?? standardError.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) }
            return "\(status.map { "\($0)" } ?? "not started"): \(reason ?? "nothing on stderr")"
        }
    }

    /// The default cap on a worker's resident memory: half the machine's, so that a runaway
    /// subject is stopped while the machine can still take its stacks.
    public static let defaultMemoryCap: UInt64 = {
        ProcessInfo.processInfo.physicalMemory / 2
    }()

    /// Runs `executable` with `arguments` to its end on the calling thread, with Foundation's
    /// `Process` (nothing on the cooperative pool, which the caller may hold), killing it
    /// after `bound`; its standard output is discarded. No stacks, no memory cap: for short
    /// probes whose exit status is the answer.
    public static func runOnThisThread(
        executable: String, arguments: [String], environment: [String: String] = [:], within bound: Duration
    ) -> Exit {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch {
            return Exit(
                status: nil, standardError: "", timedOut: false, threadDump: nil, outgrew: nil,
                launchError: "\(executable) could not be started: \(error)")
        }
        let killed = Atomic<Bool>(false)
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            killed.store(true, ordering: .relaxed)
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + bound.dispatchInterval, execute: watchdog)
        // Read to the end first: a child blocked on a full pipe would never exit.
        let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        let status: TerminationStatus =
            process.terminationReason == .uncaughtSignal
            ? .signaled(process.terminationStatus) : .exited(process.terminationStatus)
        return Exit(
            status: status, standardError: standardError, timedOut: killed.load(ordering: .relaxed), threadDump: nil,
            outgrew: nil, launchError: nil)
    }

    /// Runs `executable` with `arguments`, handing each line of its standard output to
    /// `onLine`. Every 100 ms the watchdog asks `deadline` for the current deadline and
    /// reads the process's resident memory; once the deadline has passed or the memory is
    /// over `memoryCap`, it calls `onTimeout` (at once, so the caller can note what was
    /// running), takes a thread dump with gdb and kills the process.
    public static func run(
        executable: String,
        arguments: [String],
        environment: [String: String] = [:],
        onLine: @escaping @Sendable (String) -> Void,
        deadline: @escaping @Sendable () -> ContinuousClock.Instant?,
        memoryCap: UInt64 = defaultMemoryCap,
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
                            let pid = execution.processIdentifier.value
                            let resident = residentMemory(of: pid)
                            let outgrew = resident.flatMap { $0 > memoryCap ? $0 : nil }
                            guard outgrew != nil || deadline().map({ ContinuousClock.now > $0 }) == true else {
                                continue
                            }
                            // Stopped before the stacks are taken: a runaway keeps growing
                            // meanwhile, and a hung worker's own watchdog (at four times the
                            // allowance) may end it while gdb, slow on a loaded machine, is
                            // still loading symbols, which would cancel the dump. The stacks
                            // are then those of the moment the allowance ran out.
                            _ = kill(pid, SIGSTOP)
                            onTimeout()
                            let stacks = await ThreadDump.take(pid: pid, within: .seconds(20))
                            watch.state.withLock { $0 = (outgrew == nil, stacks, outgrew) }
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
                timedOut: watch.state.withLock { $0.timedOut }, threadDump: watch.state.withLock { $0.dump },
                outgrew: watch.state.withLock { $0.outgrew }
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
    package let state = Lock<(timedOut: Bool, dump: String?, outgrew: UInt64?)>((false, nil, nil))
}

/// The resident memory of process `pid` in bytes (Linux's `/proc/<pid>/statm`); nil where
/// that cannot be read, and the cap is then not enforced.
private func residentMemory(of pid: Int32) -> UInt64? {
    guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
    return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
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
