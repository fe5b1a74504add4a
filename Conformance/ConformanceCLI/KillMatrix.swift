import SchedulerConformance
import SchedulerMutants

/// The suite's self-test, as people read it: which rules killed which mutant.
enum KillMatrix {
    static func survivors(_ report: ConformanceReport) -> [String] {
        report.subjects.filter { subject in
            !subject.results.contains { $0.status.isFailure }
        }.map(\.name)
    }

    static func render(_ report: ConformanceReport) -> String {
        let faults = Dictionary(uniqueKeysWithValues: Mutants.all.map { ($0.subject.name, $0) })
        var lines = ["", "kill matrix (mutant: fault -> rules that caught it)"]
        for subject in report.subjects {
            let killers = subject.results.filter { $0.status.isFailure }.map(\.rule)
            let mutant = faults[subject.name]
            let verdict = killers.isEmpty ? "SURVIVED" : killers.joined(separator: " ")
            let intended = mutant.map { killers.contains($0.killer) ? "" : "  (intended killer \($0.killer) missed)" } ?? ""
            lines.append("  \(subject.name) [\(mutant?.fault ?? "?")]: \(verdict)\(intended)")
        }
        let survivors = survivors(report)
        lines.append(survivors.isEmpty ? "every mutant killed" : "SURVIVORS: \(survivors.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
