// The vocabulary is part of the suite's API (subjects, rule IDs, results, a gate), so whoever
// imports the suite has it without a second import.
@_exported import SchedulerVocabulary
