import CommandSupport
import Dispatch
import Foundation
import SchedulerConformance
import Schedulers

/// Trap probes (``TrapProbes``) in a child process of a tool built on this harness: what
/// lets a rule judge that a subject stops the process (a failed isolation check), which no
/// rule can do in the process it runs in.
public enum TrapProbeProcess {
    /// A runner that starts `executable trap-probe --subject NAME --probe ID` (the hidden
    /// command every tool built on ``ConformanceTool`` has) and reads how it ended.
    public static func runner(executable: String = CommandLine.arguments[0]) -> TrapProbeRunner {
        { subject, probe in
            // No crash report: the trap is the expected outcome, and the report takes seconds.
            // On this thread: a test process's synchronous tests may hold the whole
            // cooperative pool, and an async child would wait for them (16 s a probe, seen).
            judge(
                WorkerProcess.runOnThisThread(
                    executable: executable, arguments: ["trap-probe", "--subject", subject.name, "--probe", probe],
                    environment: ["SWIFT_BACKTRACE": "enable=no"], within: .seconds(30)))
        }
    }

    private static func judge(_ exit: WorkerProcess.Exit) -> TrapOutcome {
        if let launchError = exit.launchError { return .unavailable(launchError) }
        if exit.timedOut { return .unavailable("the probe process hung") }
        switch exit.status {
        case .exited(0)?: return .returned
        // Only a death by signal is a trap: any other exit (a usage error, a tool without
        // the command) says nothing about the subject.
        case .signaled?: return .trapped(exit.crashReason)
        case .exited(let code)?:
            return .unavailable(
                "the probe process exited with \(code) (a tool without the probe, or it does not know the subject)")
        case nil: return .unavailable("the probe process did not start")
        }
    }
}

/// The child side: runs one probe on its main thread and exits 0 if it returned.
package enum TrapProbeCommand {
    /// The exit status for a probe or subject this tool does not know.
    package static let unknownProbe: Int32 = 65

    package static func run(subject name: String, probe: String) -> Never {
        guard let subject = Toolkit.current.subject(named: name), TrapProbes.run(probe, for: subject) else {
            exit(unknownProbe)
        }
        exit(0)
    }
}
