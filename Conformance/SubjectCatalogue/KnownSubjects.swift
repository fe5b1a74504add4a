import SchedulerConformance
import SchedulerMutants
import ThirdPartySubjects

/// Every subject the command-line tools know by name: the reference schedulers, the
/// third-party ones, then the mutants (including the hanging and crashing ones that test
/// isolation).
public enum KnownSubjects {
    /// Every known subject, reference ones first.
    public static let all: [ConformanceSubject] = ReferenceSubjects.all + ThirdPartySubjects.all + Mutants.subjects

    /// The subject named `name`, if any.
    public static func named(_ name: String) -> ConformanceSubject? {
        all.first { $0.name == name }
    }
}
