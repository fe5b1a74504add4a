import Foundation
import SchedulerProbes

/// How code that must stop the process (a failed isolation check, say) ended, run in a
/// process of its own.
public enum TrapOutcome: Sendable, Equatable {
    /// The process died, as it should; with the line that says why.
    case trapped(String)
    /// The code returned: it should have stopped the process.
    case returned
    /// The probe could not be run (no executable to run it in, a launch failure, a hang).
    case unavailable(String)
}

/// Runs a probe of ``TrapProbes`` for a subject in a process of its own: what a rule that
/// judges a trap asks of the harness. `nil` in a process that cannot start one (a test
/// process calling ``ConformanceRunner`` directly), where such rules stay inconclusive.
public typealias TrapProbeRunner = @Sendable (_ subject: ConformanceSubject, _ probe: String) -> TrapOutcome

/// Code that a correct subject makes stop the process, named so a child process can run it:
/// a rule asks the harness to run one (``RuleContext/expectTrap(_:_:)``), and the harness's
/// hidden `trap-probe` command runs it on the main thread of a new process.
public enum TrapProbes {
    /// `checkIsolated()` on a thread no job of the executor runs on.
    public static let checkIsolatedOutside = "executor-check-isolated-outside"

    /// Runs probe `id` for `subject` on a new thread, which runs none of its work (not the
    /// main thread, which a main-thread executor owns). Returns true when the probe returned
    /// (a correct subject never lets it); false for an unknown probe or subject, or a probe
    /// that neither returned nor ended the process within 20 s.
    public static func run(_ id: String, for subject: ConformanceSubject) -> Bool {
        guard id == checkIsolatedOutside, subject.kind == .executor, let serial = subject.makeExecutor().serial else {
            return false
        }
        let returned = Signal()
        Thread {
            serial.checkIsolated()
            returned.fire()
        }.start()
        // A correct executor ends the process before this wait does.
        return returned.wait(.seconds(20))
    }
}

extension RuleContext {
    /// Runs probe `id` for the subject in a process of its own and judges it: nil when no
    /// process could run it (the rule then cannot judge what the probe checks), otherwise
    /// whether it trapped; a probe that returned fails the rule with `returned`.
    public func expectTrap(_ id: String, _ returned: @autoclosure () -> String) throws(RuleFailure) -> Bool? {
        guard let trapProbe else { return nil }
        switch trapProbe(subject, id) {
        case .trapped: return true
        case .returned: throw RuleFailure(returned())
        case .unavailable: return nil
        }
    }
}
