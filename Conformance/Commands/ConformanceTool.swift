import ArgumentParser
import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerVocabulary

/// The `conformance` command, as a library: give it your subjects and it is the whole tool
/// this project uses on its own schedulers, with the same subcommands, flags, process
/// isolation and reports.
///
/// ```swift
/// // Sources/my-conformance/main.swift
/// import SchedulerHarness
/// ConformanceTool.main(subjects: [ConformanceSubject(name: "mine") { MyScheduler() }])
/// ```
///
/// Subcommands: `run` (the default), `list-rules`, `list-subjects`, `mutants`,
/// `matrix-markdown`. Exit status: 0 when nothing gates, 1 when a gating rule fails (see
/// ``Gate``) or a mutant survives, 64 for bad usage.
public enum ConformanceTool {
    /// Runs the command line of this process against `subjects` (and `mutants`, whose
    /// subjects are known too); `explanations` are printed beside the failures they explain
    /// and excuse them from the gate. Does not return.
    public static func main(
        subjects: [ConformanceSubject], mutants: [Mutant] = [], explanations: Explanations = [:], gate: Gate? = nil
    ) -> Never {
        main(Toolkit(subjects: subjects, mutants: mutants, explanations: explanations, gate: gate))
    }

    /// Runs the command line of this process with `toolkit`. Does not return.
    public static func main(_ toolkit: Toolkit) -> Never {
        toolkit.main(ConformanceCommand.self)
    }
}

struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: executableName(or: "conformance"),
        abstract: "Check schedulers against the numbered rules of the conformance catalogue.",
        subcommands: [
            Run.self, Merge.self, DashboardCommand.self, ListRules.self, ListSubjects.self, MutantsCommand.self,
            MatrixMarkdown.self, Replay.self, Mutate.self, Worker.self, TrapProbe.self,
        ],
        defaultSubcommand: Run.self
    )
}
