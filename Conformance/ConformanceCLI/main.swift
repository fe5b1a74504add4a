import ConformanceCommands
import SchedulerMutants
import SchedulerVocabulary

// The project's own `conformance`: the reference schedulers, and the mutants that prove
// the rules can fail (including the hanging, crashing and growing ones that exercise isolation), and
// the mutants' fault-free controls, which must pass.
ConformanceTool.main(
    subjects: ReferenceSubjects.all + [
        Mutants.hanging, Mutants.crashing, Mutants.growing, Mutants.spinning, Mutants.raceCanary,
    ]
        + Mutants.controls,
    mutants: Mutants.all)
