import SchedulerMutants
import SchedulerVocabulary
import StressCommands

// The project's own `stress`: the reference schedulers, and the mutants that prove the
// scenarios and the isolation can fail (with the fault-free controls of the clock and
// executor mutants).
StressTool.main(subjects: ReferenceSubjects.all + Mutants.subjects + Mutants.controls)
