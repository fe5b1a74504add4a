import SchedulerConformance
import SchedulerMutants
import Schedulers
import Testing

/// The suite tests itself: every mutant must fail at least one rule it claims, and the
/// rule meant to catch it must be among those that do.
@Suite struct MutantKillTests {
    /// Shorter "must happen" bounds: a mutant's missing event should not cost 10 s.
    static let timing = Timing(mustHappen: .seconds(3), quietWindow: .milliseconds(100), lateness: .milliseconds(100), ruleTimeout: .seconds(20))

    @Test(arguments: Mutants.all.map(\.subject.name))
    func mutantIsKilledByTheRuleMeantForIt(_ name: String) throws {
        let mutant = try #require(Mutants.all.first { $0.subject.name == name })
        let results = ConformanceRunner.run(mutant.subject, timing: Self.timing)
        let killers = results.filter { $0.status.isFailure }.map(\.rule)
        #expect(!killers.isEmpty, "\(name) (\(mutant.fault)) survived every rule it claims")
        let expected = Set(mutant.expectedKillers)
        #expect(!expected.isDisjoint(with: killers), "\(name) was not caught by \(mutant.expectedKillers); caught by \(killers)")
        print("kill matrix: \(name) killed by \(killers.joined(separator: ", "))")
    }

    @Test func mutantsCoverEveryCategory() {
        let categories = Set(Mutants.all.flatMap(\.expectedKillers).compactMap { RuleCatalogue.rule($0)?.category })
        #expect(categories == Set(Rule.Category.allCases), "no mutant for \(Set(Rule.Category.allCases).subtracting(categories))")
        #expect(Mutants.all.count >= 15)
    }
}
