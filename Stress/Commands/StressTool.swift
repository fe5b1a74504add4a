import ArgumentParser
import CommandSupport
import Foundation
import SchedulerStress
import SchedulerVocabulary

/// The `stress` command, as a library: give it your subjects and it is the whole tool this
/// project uses on its own schedulers — multithreaded scenarios, each run in a child
/// process under a watchdog, with latency histograms, allocation counts and JSON reports.
///
/// ```swift
/// // Sources/my-stress/main.swift
/// import SchedulerHarness
/// StressTool.main(subjects: [ConformanceSubject(name: "mine") { MyScheduler() }])
/// ```
///
/// Subcommands: `run` (the default), `compare`, `table`, `list-scenarios`,
/// `calibrate-allocations`, `instructions`.
public enum StressTool {
    /// Runs the command line of this process against `subjects`; `explanations` are printed
    /// beside the failures they explain and excuse them from the gate. Does not return.
    public static func main(subjects: [ConformanceSubject], explanations: Explanations = [:], gate: Gate? = nil)
        -> Never
    {
        main(Toolkit(subjects: subjects, explanations: explanations, gate: gate))
    }

    /// Runs the command line of this process with `toolkit`. Does not return.
    public static func main(_ toolkit: Toolkit) -> Never {
        toolkit.main(StressCommand.self)
    }
}

struct StressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: executableName(or: "stress"),
        abstract: "Stress schedulers: classified outcomes, latency histograms, allocation statistics.",
        subcommands: [
            Run.self, Merge.self, Compare.self, Export.self, Table.self, ListScenarios.self, CalibrateAllocations.self,
            Instructions.self, Worker.self, MeasurePath.self,
        ],
        defaultSubcommand: Run.self
    )
}

/// Exit codes of `stress` and `stress compare`, distinct so a nightly job can branch on them.
enum StressExit {
    static let failed: Int32 = 1
    static let usage: Int32 = 64
    static let regression: Int32 = 10
    static let improvementOnly: Int32 = 11
    static let baselineMissing: Int32 = 12
}
