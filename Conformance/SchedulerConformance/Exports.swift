// The report model is part of the suite's API (a gate, explanations, the statuses a check
// ends with), so whoever imports the suite has it without a second import.
@_exported import SchedulerReporting
