import Foundation
import SchedulerConformance
import SchedulerVocabulary
import Subprocess
import TestSupport
import Testing

@testable import ConformanceCommands

/// The parts of `conformance mutate` that need no build: reading diffs and compiler
/// errors, scoring, declarations, and the report's schema. The whole command runs in the
/// example package's tests, on its own scheduler.
@Suite struct MutationTests {
    @Test func aDiffGivesTheNewSideLinesOfEachFile() {
        let diff = """
            diff --git a/Queue.swift b/Queue.swift
            --- a/Queue.swift
            +++ b/Queue.swift
            @@ -3 +3,2 @@ struct Queue {
            -    var a = 1
            +    var a = 2
            +    var b = 3
            @@ -10,2 +11 @@ func f() {
            +    g()
            diff --git a/Gone.swift b/Gone.swift
            +++ /dev/null
            @@ -1,4 +0,0 @@
            diff --git a/New.swift b/New.swift
            +++ b/New.swift
            @@ -0,0 +1,3 @@
            """
        #expect(ChangedLines.parse(diff) == ["Queue.swift": [3, 4, 11], "New.swift": [1, 2, 3]])
    }

    @Test func aCompileErrorIsPinnedOnTheInnermostMutantOnItsLine() throws {
        let manifest = try JSONDecoder().decode(
            MutantManifest.self,
            from: Data(
                """
                {"files": ["A.swift"], "switchFile": "S.swift", "mutants": [
                  {"id": 1, "file": "A.swift", "line": 4, "column": 1, "operator": "unguard-lock", "context": "f()",
                   "original": "x", "mutated": "y", "occurrence": 1, "schemata": {"start": [4, 5], "end": [6, 9]}},
                  {"id": 2, "file": "A.swift", "line": 5, "column": 1, "operator": "remove-call", "context": "f()",
                   "original": "x", "mutated": "", "occurrence": 1, "schemata": {"start": [5, 9], "end": [5, 40]}}
                ]}
                """.utf8))
        let workspace = MutationWorkspace(
            package: URL(fileURLWithPath: "/p"), scratch: URL(fileURLWithPath: "/p/.build-mutate"), target: "T",
            targetPath: "Sources/T", configuration: "debug", product: "tool")
        let folder = "/p/.build-mutate/package/Sources/T/"
        func error(_ line: Int, in file: String = "A.swift") -> MutationWorkspace.CompileError {
            .init(path: folder + file, line: line, column: 3, message: "type mismatch")
        }
        #expect(workspace.culprits(of: [error(5)], in: manifest) == [2])
        #expect(workspace.culprits(of: [error(6)], in: manifest) == [1])
        #expect(workspace.culprits(of: [error(9)], in: manifest) == nil, "in no mutant's code: dropping cannot fix it")
        #expect(workspace.culprits(of: [error(5, in: "B.swift")], in: manifest) == nil)
        let output = "\(folder)A.swift:5:12: error: cannot convert value\n/x/B.swift:1:1: warning: unused\n"
        #expect(
            MutationWorkspace.compileErrors(in: output) == [
                .init(path: folder + "A.swift", line: 5, column: 12, message: "cannot convert value")
            ])
    }

    static func result(
        _ id: Int, _ verdict: MutationReport.Verdict, file: String = "A.swift", operator kind: String = "remove-call"
    )
        -> MutationReport.MutantResult
    {
        var result = MutationReport.MutantResult(
            id: id, file: file, line: id, column: 1, operator: kind, context: "f()", original: "go()", mutated: "",
            occurrence: id, verdict: verdict)
        if verdict == .killed {
            result.killedBy = .init(
                subject: "queue", rule: "ORD-1", status: .failed, durationSeconds: 0.1, message: "out of order")
            result.kill = .failure
        }
        return result
    }

    static func report(_ mutants: [MutationReport.MutantResult]) -> MutationReport {
        MutationReport(
            package: "/p", target: "T", product: "conformance", configuration: "release", subjects: ["queue"],
            operators: ["remove-call"], since: nil, seconds: .init(build: 1, baseline: 2, mutants: 3),
            baseline: [.init(subject: "queue", rule: "ORD-1", status: .passed, durationSeconds: 0.1, reaches: 3)],
            notCompiled: [], mutants: mutants)
    }

    @Test func aWorkerThatDiesBeforeItsFirstRuleIsACrashUnlessItNeverStarted() {
        func trial(_ message: String) -> MutationReport.Trial {
            .init(subject: "queue", rule: "ORD-1", status: .error, durationSeconds: 0, message: message)
        }
        #expect(trial("the worker failed before this rule: signaled(4): Fatal error: 'try!'").kill == .crash)
        #expect(trial("the worker process died (signaled(11): …)").kill == .crash)
        #expect(trial("the worker failed before this rule: not started: no such file").kill == nil)
    }

    /// What a worker reached before its first rule (making the subject, entering the main
    /// queue's drain) may change every rule after it, so it counts for each of them.
    @Test func codeReachedBeforeTheFirstRuleIsReachedByEveryRuleOfThatSubject() {
        let log = "queue\t*\t3,4\nqueue\tORD-1\t7\nmain\tORD-2\t\nmain\tXYZ-9\t8\n"
        let reach = MutationTrials.reach(log: log + "main\tORD-1\t4\n", rules: [.ord1, .ord2])
        #expect(reach.pairs[.init(subject: "queue", rule: .ord1)] == [3, 4, 7])
        #expect(reach.pairs[.init(subject: "queue", rule: .ord2)] == [3, 4])
        #expect(reach.pairs[.init(subject: "main", rule: .ord2)] == [])
        #expect(reach.pairs[.init(subject: "main", rule: .ord1)] == [4], "an unknown rule's line counts for no rule")
        #expect(reach.beforeRulesOnly == [3], "4 was reached by a rule's own work too")
    }

    @Test func aFilesHomeSubjectsAreThoseItsNarrowerMutantsPointAt() throws {
        let manifest = try JSONDecoder().decode(
            MutantManifest.self,
            from: Data(
                """
                {"files": ["Main.swift", "Queue.swift"], "switchFile": "S.swift", "mutants": [
                  {"id": 1, "file": "Main.swift", "line": 4, "column": 1, "operator": "remove-call", "context": \
                "drain()",
                   "original": "x", "mutated": "", "occurrence": 1, "schemata": {"start": [4, 5], "end": [4, 9]}},
                  {"id": 2, "file": "Main.swift", "line": 9, "column": 1, "operator": "remove-call", "context": \
                "schedule()",
                   "original": "x", "mutated": "", "occurrence": 1, "schemata": {"start": [9, 5], "end": [9, 9]}},
                  {"id": 3, "file": "Queue.swift", "line": 2, "column": 1, "operator": "remove-call", "context": "f()",
                   "original": "x", "mutated": "", "occurrence": 1, "schemata": {"start": [2, 5], "end": [2, 9]}}
                ]}
                """.utf8))
        let pair = { (subject: String) in MutationTrials.Pair(subject: subject, rule: .ord1) }
        // Mutant 1 is in code every subject runs (the runner's main-queue loop): no clue.
        let home = MutationTrials.homeSubjects(
            of: manifest.mutants,
            reachedBy: [1: [pair("main"), pair("queue")], 2: [pair("main")], 3: [pair("main"), pair("queue")]])
        #expect(home["Main.swift"] == ["main"])
        #expect(home["Queue.swift"] == nil, "every subject reaches its only mutant")
    }

    @Test func theScoreLeavesOutDeclaredEquivalentsAndCountsUncoveredAsMissed() {
        let report = Self.report([
            Self.result(1, .killed), Self.result(2, .killed), Self.result(3, .survived), Self.result(4, .uncovered),
            Self.result(5, .equivalent, file: "B.swift", operator: "off-by-one"),
        ])
        #expect(report.total.killed == 2 && report.total.mutants == 5)
        #expect(report.total.score == 50)
        #expect(report.byFile.map(\.name) == ["A.swift", "B.swift"])
        #expect(report.byOperator.first { $0.name == "off-by-one" }?.tally.score == 100, "nothing left to score")
        let table = report.table()
        #expect(
            table.hasPrefix("mutation score 50.0 % (2 killed of 4 scored; 2 survived, 1 of them reached by no rule"))
        #expect(table.contains("#3 A.swift:3:1 remove-call in f(): remove `go()`; ran 0 rule(s)"))
        #expect(table.contains("#4 A.swift:4:1 remove-call in f(): remove `go()`; reached by no rule"))
    }

    @Test func aDeclarationMatchesByKeyAndAKilledDeclaredMutantIsCalledOut() throws {
        var killed = Self.result(1, .killed)
        let declarations = EquivalentMutants(declarations: [
            .init(mutant: killed.key, reason: "the call only logs"),
            .init(mutant: Self.result(9, .survived).key, reason: "unrelated"),
        ])
        #expect(declarations.reason(for: killed.key) == "the call only logs")
        #expect(declarations.reason(for: Self.result(2, .survived).key) == nil, "another occurrence is another mutant")
        let onX86 = EquivalentMutants(declarations: [
            .init(mutant: killed.key, reason: "same machine code", architecture: "x86_64")
        ])
        #expect(onX86.reason(for: killed.key, architecture: "x86_64") == "same machine code")
        #expect(onX86.reason(for: killed.key, architecture: "arm64") == nil, "declared for another CPU only")
        killed.declaredEquivalent = declarations.reason(for: killed.key)
        let report = Self.report([killed])
        #expect(report.wronglyDeclared.map(\.id) == [1])
        #expect(report.table().contains("declared equivalent but killed by ORD-1@queue: #1 A.swift:1 remove `go()`"))
        let decoded = try JSONDecoder().decode(EquivalentMutants.self, from: JSONEncoder().encode(declarations))
        #expect(decoded == declarations)
    }

    @Test func theReportValidatesAgainstItsSchema() async throws {
        let folder = try ScratchFolder.make("mutation")
        let json = folder.appendingPathComponent("mutation.json")
        try Self.report([Self.result(1, .killed), Self.result(2, .survived), Self.result(3, .uncovered)]).jsonData()
            .write(to: json)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let validation = try await Subprocess.run(
            .name("python3"),
            arguments: [
                root.appendingPathComponent("Reports/schema/validate.py").path,
                root.appendingPathComponent("Reports/schema/mutation.schema.json").path, json.path,
            ],
            output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
        #expect(validation.terminationStatus == .exited(0), "\(validation.standardError)")
    }
}
