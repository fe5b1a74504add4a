import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

/// `--scenario` values, checked against the catalogue.
enum ScenarioSelection {
    /// The named scenarios, each once, in the order first named; all but the opt-in ones
    /// (the soak) when none is.
    static func select(_ names: [String]) throws -> [StressScenario] {
        let names = try nonEmptyList(names, option: "--scenario")
        if names.isEmpty { return StressCatalogue.all }
        var seen = Set<ScenarioID>()
        return try names.compactMap { name in
            guard let scenario = StressCatalogue.scenario(ScenarioID(rawValue: name)) else {
                throw ValidationError(
                    """
                    unknown scenario '\(name)'; known: \
                    \((StressCatalogue.all + StressCatalogue.optIn).map(\.id.rawValue).joined(separator: ", "))
                    """
                )
            }
            return seen.insert(scenario.id).inserted ? scenario : nil
        }
    }
}

/// What one worker process runs.
struct RunPlan: Sendable {
    var scenario: ScenarioID
    var subject: String
    var threads: Int
    var seed: UInt64
    var durationSeconds: Double

    /// The command line that repeats this run.
    var reproduce: String {
        """
        \(CommandLine.arguments[0]) run --scenario \(scenario) --subject \(subject) --seed \(seed) --duration \
        \(durationSeconds) --threads \(threads)
        """
    }

    var workerArguments: [String] {
        [
            "worker", "--subject", subject, "--scenario", scenario.rawValue, "--seed", String(seed), "--duration",
            String(durationSeconds), "--threads", String(threads),
        ]
    }
}

/// Budgets such as `90s`, `30m`, `2h`.
enum Budget {
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600]
        guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value.isFinite,
            value > 0,
            value * unit <= 7 * 86_400
        else { return nil }
        return value * unit
    }
}
