import Foundation
import SchedulerConformance

/// The child side of isolation: runs one subject's rules and reports each on standard
/// output as one line, `@@conformance start ID` before and `@@conformance result JSON`
/// after, so the supervisor knows which rule was running if this process dies or hangs.
enum Worker {
    static let prefix = "@@conformance "

    static func run(subject: ConformanceSubject, rules: [Rule], timing: Timing) {
        var timing = timing
        // The supervisor is the watchdog; this one only exists for hangs it cannot see.
        timing.ruleTimeout = timing.ruleTimeout * 4
        let encoder = JSONEncoder()
        _ = ConformanceRunner.run(
            subject, rules: rules, timing: timing,
            willStart: { rule in emit("start \(rule.id)") },
            progress: { result in
                guard let json = try? encoder.encode(result) else { return }
                emit("result " + String(decoding: json, as: UTF8.self))
            }
        )
    }

    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((prefix + line + "\n").utf8))
    }
}
