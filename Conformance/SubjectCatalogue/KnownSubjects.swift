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

    /// Names that stand for several subjects on the command line.
    public static let groups: [(name: String, subjects: [ConformanceSubject])] = [
        ("reference", ReferenceSubjects.all),
        ("third-party", ThirdPartySubjects.all),
    ]

    /// The subjects that `names` (subject or group names) stand for, in order, each once;
    /// nil when one name is unknown.
    public static func select(_ names: [String]) -> [ConformanceSubject]? {
        var selected: [ConformanceSubject] = []
        for name in names {
            guard let subjects = groups.first(where: { $0.name == name })?.subjects ?? named(name).map({ [$0] }) else { return nil }
            selected += subjects.filter { subject in !selected.contains { $0.name == subject.name } }
        }
        return selected
    }
}
