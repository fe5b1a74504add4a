import SchedulerHarness
import WorkerThreadSubjects

// The whole `stress` tool for this package's scheduler: `swift run worker-thread-stress --help`.
StressTool.main(subjects: WorkerThreadSubjects.all)
