import Foundation
import SchedulerProbes
import Schedulers

extension ScenarioExplorer {
    /// One run of a scenario, and the checker's refusal of it if it was refused.
    struct Trial<Model: SequentialModel> {
        var scenario: Scenario<Model.Operation>
        var execution: ScenarioExecution<Model>
        var jitter: Jitter
        var refusal: Linearizability.Refusal<Model>?
        /// The checker gave up on this run's history.
        var undecided = false
    }

    /// The smallest scenario reached by dropping threads and operations while some run of it
    /// is still refused (up to 16 runs of each candidate), within `bound`.
    static func shrink<Model>(
        _ failing: Trial<Model>, seed: UInt64, within bound: Duration,
        trial: (Scenario<Model.Operation>, UInt64, Int) throws(RuleFailure) -> Trial<Model>
    ) throws(RuleFailure) -> Trial<Model> {
        let deadline = ContinuousClock.now + max(bound, .seconds(1))
        var current = failing
        var progressed = true
        while progressed, ContinuousClock.now < deadline {
            progressed = false
            candidates: for candidate in current.scenario.shrinks {
                for index in 0..<16 {
                    guard ContinuousClock.now < deadline else { break candidates }
                    let run = try trial(candidate, seed, index)
                    if run.refusal != nil {
                        current = run
                        progressed = true
                        break candidates
                    }
                }
            }
        }
        return current
    }
}
