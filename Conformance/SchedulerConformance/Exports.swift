// So are a hang's and a crash's diagnostics (`ThreadDump`), which moved below the suite so
// that the stress tool's supervisor has them without the rules.
@_exported import SchedulerDiagnostics
// The vocabulary is part of the suite's API (subjects, rule IDs, results, a gate), so whoever
// imports the suite has it without a second import.
@_exported import SchedulerVocabulary
