import SchedulerConformance
import SchedulerHarness
import ThirdPartySubjects

// The matrix's `stress`: every scenario on the reference and third-party schedulers.
StressTool.main(
    subjects: ReferenceSubjects.all + ThirdPartySubjects.all, explanations: Deviations.explanations,
    gate: .referenceOnly)
