import Foundation
import SchedulerConformance
import Schedulers
import Testing

@testable import SchedulerStress

/// Outcome and metric names are values the compiler checks; what it cannot check (the
/// schema's list, an outcome recorded by the wrong scenario) fails here or in the report.
@Suite struct TypedNameTests {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reports/schema/stress.schema.json")

    @Test func theSchemaListsEveryMetricAndNoOther() throws {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schema)) as? [String: Any]
        let definitions = try #require(document?["$defs"] as? [String: Any])
        let names = try #require((definitions["metricName"] as? [String: Any])?["enum"] as? [String])
        #expect(names == StressMetric.all.map(\.rawValue))
        #expect(Set(names).count == names.count, "a metric is listed twice")
    }

    @Test func theSchemaListsEveryBaselineAndNoOther() throws {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schema)) as? [String: Any]
        let runs = try #require((document?["properties"] as? [String: Any])?["runs"] as? [String: Any])
        let properties = try #require((runs["items"] as? [String: Any])?["properties"] as? [String: Any])
        let names = try #require((properties["baseline"] as? [String: Any])?["enum"] as? [String])
        #expect(names == BareBaseline.allCases.map(\.rawValue))
    }

    /// A scenario whose body records another scenario's outcome: the count has no place in
    /// the report, so the run is an error that names it rather than a pass that lost it.
    @Test func anOutcomeTheScenarioDoesNotDeclareMakesTheRunAnError() throws {
        let scenario = StressScenario(
            ScenarioID(rawValue: "mislabelled"), "records a foreign outcome", outcomes: FanInOutcome.self
        ) { ctx in
            ctx.record(FanInOutcome.ranOnce)
            ctx.record(TimerStormOutcome.early)
        }
        let subject = try #require(ReferenceSubjects.all.first { $0.name == "queue" })
        let context = StressContext(subject: subject, threads: 1, duration: .milliseconds(1), seed: 1)
        try scenario.run(context)
        let run = StressRun(scenario: scenario, context: context, duration: .milliseconds(1), failure: nil)
        #expect(run.status == .error)
        #expect(run.message?.contains("early") == true)
        #expect(run[FanInOutcome.ranOnce]?.count == 1)
    }

    @Test func everyScenarioDeclaresEachOutcomeOnce() {
        for scenario in StressCatalogue.all {
            let names = scenario.outcomes.map(\.name)
            #expect(Set(names).count == names.count, "\(scenario.id) declares an outcome twice")
        }
    }
}
