import SchedulerHarness
import WorkerThreadSubjects

// The whole `conformance` tool for this package's scheduler: `swift run worker-thread-conformance --help`.
ConformanceTool.main(subjects: WorkerThreadSubjects.all)
