import CommandSupport
import Foundation
import SchedulerConformance
import SchedulerHarness
import SchedulerMutants
import Schedulers
import TestSupport
import Testing

/// The suite tests itself: the rule written for each mutant must fail on it in every one of
/// ten runs, since a rule that catches a fault only sometimes lets it through the rest.
@Suite struct MutantKillTests {
    /// Shorter "must happen" bounds for rules run in this process (here and by other tests'
    /// checks of correct subjects): an event that never comes should not cost 10 s.
    static let timing = Timing(
        mustHappen: .seconds(1), quietWindow: .milliseconds(100), lateness: .milliseconds(100),
        ruleTimeout: .seconds(30))
    /// The kills' bounds: shorter still. A quarter of the mutants are caught by an event that
    /// never comes, each run waiting the whole bound (half the kills' time, at half a second),
    /// while what a rule waits for first takes micro- to milliseconds: a step slowed past a
    /// quarter of a second fails the mutant early, and never passes it.
    static let killTiming = Timing(
        mustHappen: .milliseconds(250), quietWindow: .milliseconds(100), lateness: .milliseconds(100),
        ruleTimeout: .seconds(30))
    /// Runs per mutant. Under ThreadSanitizer one: there the suite looks for data races in
    /// the paths a rule takes on each broken subject, which one run takes as a second would
    /// (the sanitizer sees a race whichever way it resolved), at a tenth of the speed; that
    /// each rule catches its mutant in ten runs of ten is this same test's to show in
    /// `make test` (under the sanitizer a run misses only when the rule broke).
    static let runs = ThreadSanitizerBuild.isEnabled ? 1 : 10
    /// Rules that judge a trap run it in a child process of the `conformance` command, which
    /// knows every mutant.
    static let conformance = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("conformance").path
    static let trapProbe = TrapProbeProcess.runner(executable: conformance)

    /// One test for every mutant, judged two at a time on threads of their own
    /// (``OwnThread``): as test cases of their own, the queued ones would hold every place
    /// Swift Testing gives tests at once (twice the cores), and the other tests would start
    /// only when the kills were done.
    @Test(.nightly("ten runs of every mutant; the gate runs `conformance mutants --runs 1` in release"))
    func everyMutantIsKilledByItsRuleInEveryRun() async {
        let verdicts = await withTaskGroup(of: (String, String?).self) { group in
            for mutant in Mutants.all {
                group.addTask { (mutant.subject.name, await Self.verdict(on: mutant)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts.count == Mutants.all.count)
        for (name, escape) in verdicts.sorted(by: { $0.0 < $1.0 }) {
            #expect(escape == nil, "\(name): \(escape ?? "")")
        }
    }

    /// Nil when `mutant`'s rule caught it in every run, else what went wrong.
    private static func verdict(on mutant: Mutant) async -> String? {
        let rule = RuleCatalogue.rule(mutant.killer)
        if let reason = rule.skipReason(for: mutant.subject) {
            return "does not claim what \(rule.id) needs: \(reason)"
        }
        let misses = await OwnThread.run(.mutants) { Self.misses(of: mutant, by: rule) }
        return misses.isEmpty
            ? nil
            : """
            (\(mutant.fault)) escaped \(rule.id) in \(misses.count) of \(Self.runs) runs: \
            \(misses.prefix(3).joined(separator: "; "))
            """
    }

    /// The runs of ``runs`` in which `rule` did not catch `mutant`, each with what it said.
    private static func misses(of mutant: Mutant, by rule: Rule) -> [String] {
        let name = mutant.subject.name
        let started = ContinuousClock.now
        // THR-6 weighs the whole process's memory, so it judges only in a process of its own,
        // and a main-thread subject's calls from the main thread need a process whose main
        // thread is driven (Swift Testing's is not): such mutants are checked by the
        // `conformance mutants` command, each run in a worker. In this process, and under the
        // sanitizer, THR-6 must say it cannot judge, not pass.
        let weighsMemory = rule.id == .thr6
        let inWorker =
            (weighsMemory && !ThreadSanitizerBuild.isEnabled) || mutant.subject.capabilities.contains(.mainThread)
        // A worker's rules are out of sight of the runner's core gate, so every kill also
        // passes this one: a racing rule judged here beside a worker (TIM-12 beside THR-6's
        // thousands of threads) saw stalls of 100 ms, three measurements running, and came
        // out inconclusive.
        let misses = workers.run(exclusive: rule.needsIdleCores) {
            inWorker ? killsInWorker(of: name) : missesHere(of: mutant, by: rule, weighsMemory: weighsMemory)
        }
        print("kill: \(name) by \(rule.id), \(runs - misses.count)/\(runs) in \(ContinuousClock.now - started)")
        return misses
    }

    /// Lets a kill whose rule races the cores run alone, a worker's kills included.
    private static let workers = CoreGate()

    /// What the `conformance mutants` worker said of `name`'s ``runs`` runs, if it failed.
    private static func killsInWorker(of name: String) -> [String] {
        let folder = ScratchFolder.reserve("kill")
        let exit = WorkerProcess.runOnThisThread(
            executable: conformance,
            arguments: ["mutants", "--runs", "\(runs)", "--mutant", name, "--quiet", "--report-dir", folder.path],
            within: .seconds(600))
        return exit.succeeded ? [] : ["the `conformance mutants` worker runs: \(exit.crashReason)"]
    }

    /// The runs of ``runs`` in this process in which `rule` did not catch `mutant`.
    private static func missesHere(of mutant: Mutant, by rule: Rule, weighsMemory: Bool) -> [String] {
        var misses: [String] = []
        for run in 1...runs {
            let result = ConformanceRunner.run(
                mutant.subject, rules: [rule], timing: killTiming, trapProbe: trapProbe)[0]
            if weighsMemory {
                if result.status != .inconclusive {
                    misses.append("run \(run): \(result.status.rawValue), not inconclusive")
                }
            } else if ThreadSanitizerBuild.isEnabled {
                // Under the sanitizer the runs look for data races, in the paths a rule takes
                // on a broken subject; the kills are `make test`'s to count. A rule that times a
                // real clock cannot catch every fault ten times slower (CLK-2's rounding-down
                // clock can wake late enough to look punctual): only a rule
                // that broke is a miss here.
                if result.status == .error {
                    misses.append("run \(run): error\(result.message.map { " (\($0))" } ?? "")")
                }
            } else if !(result.status == .failed || result.status == .timeout) {
                misses.append("run \(run): \(result.status.rawValue)\(result.message.map { " (\($0))" } ?? "")")
            }
        }
        return misses
    }

    /// A rule that applies only because a capability is not claimed names that capability
    /// when it fails: a subject doing what the capability says forgot a claim, not a behaviour.
    @Test(
        arguments: zip(
            ["mutant-virtual-single-step-unclaimed", "mutant-immediate-synchronous-unclaimed"],
            ["singleStep", "synchronous"]))
    func failureOfAnExcludingRuleNamesTheCapabilityToClaim(_ name: String, _ capability: String) throws {
        let mutant = try #require(Mutants.named(name))
        let rule = RuleCatalogue.rule(mutant.killer)
        #expect(
            rule.excludes.contains(try #require(SchedulerCapabilities.named.first { $0.name == capability }).capability)
        )
        let result = ConformanceRunner.run(mutant.subject, rules: [rule], timing: Self.timing)[0]
        #expect(result.status == .failed)
        #expect(
            result.message?.contains("does not claim `\(capability)`; if it") == true,
            "\(rule.id) on \(name): \(result.message ?? "no message")")
    }

    @Test func everyRequiredRuleThatCanFailHasAMutant() {
        let killers = Set(Mutants.all.map(\.killer))
        // Guaranteed rules cannot fail on this package's API; CUR-8 and THR-5 are left to
        // the main-thread tests and the stress runners (see the rule reference).
        // The LIN rules' mutants are bundled only in optimised builds (`make conformance-mutants`).
        #if DEBUG
            let exempt: Set<RuleID> = [.cur8, .thr5, .lin1, .lin2, .lin3, .lin4]
        #else
            let exempt: Set<RuleID> = [.cur8, .thr5]
        #endif
        let uncovered = RuleCatalogue.all.filter {
            $0.level == .required && $0.guarantee == nil && !killers.contains($0.id) && !exempt.contains($0.id)
        }.map(\.id)
        #expect(uncovered.isEmpty, "required rules without a mutant: \(uncovered)")
        #expect(Mutants.all.count >= 60)
        #expect(Set(Mutants.all.map(\.subject.name)).count == Mutants.all.count, "two mutants share a name")
    }

    /// A mutant's name is written once, where it is registered (or as its fault's raw value):
    /// the scheduler it makes is handed that name, never a second copy that could drift.
    @Test func everyMutantsNameIsWrittenOnce() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Conformance/Mutants")
        let sources = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }.map { try String(contentsOf: $0, encoding: .utf8) }
            .joined(separator: "\n")
        // Every quoted word, counted once over the sources.
        var literals: [Substring: Int] = [:]
        for quoted in sources.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().enumerated()
        where quoted.offset.isMultiple(of: 2) {
            literals[quoted.element, default: 0] += 1
        }
        for name in (Mutants.all.map(\.subject) + Mutants.subjects).map(\.name) {
            let bare = name.hasPrefix("mutant-") ? name.dropFirst("mutant-".count) : Substring(name)
            let written = literals[bare, default: 0]
            #expect(written == 1, "\(name) is written \(written) times in Conformance/Mutants")
        }
    }
}
