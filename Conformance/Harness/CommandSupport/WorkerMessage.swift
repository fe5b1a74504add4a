import Foundation
import SchedulerVocabulary

/// The wire format between a supervisor and its worker process: one JSON message per line
/// of the worker's standard output, after ``marker`` (so a subject's own output, even
/// output not ended by a newline, cannot be mistaken for one).
public enum WorkerMessage: Codable, Sendable {
    /// The worker is about to run `item` (a rule ID, or a stress scenario ID): from now
    /// the supervisor's watchdog times it.
    case started(item: String)
    /// A rule finished.
    case rule(RuleResult)
    /// A stress run finished.
    case stress(StressRun)

    /// What precedes every message on its line.
    public static let marker = "@@harness "

    /// The item a finished message is about; nil for `started`.
    package var finishedItem: String? {
        switch self {
        case .started: nil
        case .rule(let result): result.rule.rawValue
        case .stress(let run): run.scenario.rawValue
        }
    }

    /// Writes this message as one line on standard output.
    package func send() {
        guard let json = try? JSONEncoder().encode(self) else { return }
        FileHandle.standardOutput.write(Data((Self.marker + String(decoding: json, as: UTF8.self) + "\n").utf8))
    }

    /// The message on `line`, if it carries one.
    package static func parse(_ line: String) -> WorkerMessage? {
        guard let marker = line.range(of: marker) else { return nil }
        return try? JSONDecoder().decode(WorkerMessage.self, from: Data(line[marker.upperBound...].utf8))
    }
}
