/// A stress scenario's stable name, as the command line and reports have it (`fan-in`).
/// Every scenario of the catalogue has a constant, so code that names one is checked by the
/// compiler; a name read from a report or typed by a user is kept as given.
public struct ScenarioID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The scenario named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: ScenarioID, rhs: ScenarioID) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let fanIn = ScenarioID(rawValue: "fan-in")
    public static let disposeRace = ScenarioID(rawValue: "dispose-race")
    public static let recursiveStorm = ScenarioID(rawValue: "recursive-storm")
    public static let timerStorm = ScenarioID(rawValue: "timer-storm")
    public static let repeatingCancelRace = ScenarioID(rawValue: "repeating-cancel-race")
    public static let currentChurn = ScenarioID(rawValue: "current-churn")
    public static let trampolineAndVirtualLoad = ScenarioID(rawValue: "trampoline-virtual-load")
    public static let throughput = ScenarioID(rawValue: "throughput")
    public static let growth = ScenarioID(rawValue: "growth")
    public static let executorThroughput = ScenarioID(rawValue: "executor-throughput")
    public static let sleepStorm = ScenarioID(rawValue: "sleep-storm")
    public static let sleepThroughput = ScenarioID(rawValue: "sleep-throughput")
    public static let soak = ScenarioID(rawValue: "soak")
}
