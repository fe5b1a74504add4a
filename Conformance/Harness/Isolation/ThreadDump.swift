import Subprocess

/// Every thread's stack of a live process, taken with gdb.
public enum ThreadDump {
    /// The backtraces of all threads of `pid`, or nil when gdb is not installed, fails, or
    /// takes longer than `bound` (it is then stopped: a dump must not stall the watchdog).
    public static func take(pid: Int32, within bound: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await take(pid: pid) }
            group.addTask {
                try? await Task.sleep(for: bound)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private static func take(pid: Int32) async -> String? {
        let result = try? await Subprocess.run(
            .name("gdb"),
            arguments: ["-p", String(pid), "-batch", "-nx", "-q", "-ex", "thread apply all bt 30"],
            output: .string(limit: 1 << 26),
            error: .discarded
        )
        guard let result, result.terminationStatus.isSuccess else { return nil }
        let text = result.standardOutput
        guard text.contains("Thread") else { return nil }
        // The dump is for people: keep the thread headers and frames, drop gdb's chatter.
        return text.split(separator: "\n").filter { $0.hasPrefix("Thread") || $0.hasPrefix("#") }.joined(separator: "\n")
    }
}
