import SchedulerConformance
import SchedulerHarness
import ThirdPartySubjects

// The matrix's `conformance`: the reference schedulers beside every third-party one. Only
// reference failures fail the run; third-party deviations are reported with their
// explanations.
ConformanceTool.main(
    subjects: ReferenceSubjects.all + ThirdPartySubjects.all, explanations: Deviations.explanations,
    gate: .referenceOnly)
