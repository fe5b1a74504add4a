// The one import an adopter's command-line tools need: `ConformanceTool.main(subjects:)`
// and `StressTool.main(subjects:)`, with the types their arguments are made of.
@_exported import CommandSupport
@_exported import ConformanceCommands
@_exported import SchedulerConformance
@_exported import SchedulerVocabulary
@_exported import StressCommands
