extension ConformanceReport {
    /// The shards of one run as the report of the whole run: every subject with every
    /// result, in the catalogue's order, the summary counted again under `gate`, and the
    /// loosest of the shards' calibrated bounds.
    /// - Throws: `MergeError` unless `reports` are every shard of one run exactly once,
    ///   with one rule selection, and no subject × rule appears twice.
    public static func merged(_ reports: [ConformanceReport], gate: Gate = Gate()) throws(MergeError)
        -> ConformanceReport
    {
        try checkOneRun(
            schemaVersions: reports.map(\.schemaVersion), commits: reports.map(\.environment.commit),
            sanitizers: reports.map(\.environment.sanitizer), shards: reports.map(\.shard)
        )
        let first = reports[0]
        let ruleIDs = first.rules.map(\.id)
        guard reports.allSatisfy({ $0.rules.map(\.id) == ruleIDs }) else {
            throw .notOneRun("the reports ran different selections of rules")
        }
        // Every shard lists every subject it was asked for, with or without results.
        guard reports.allSatisfy({ $0.subjects.map(\.name) == first.subjects.map(\.name) }) else {
            throw .notOneRun("the reports ran different selections of subjects")
        }
        guard Set(reports.map(\.timingScale)).count == 1 else {
            throw .notOneRun("the reports used different timing scales")
        }
        let order = positions(ruleIDs)
        var subjects = first.subjects
        for index in subjects.indices {
            let results = reports.flatMap { $0.subjects[index].results }
            var seen = Set<RuleID>()
            if let twice = results.first(where: { !seen.insert($0.rule).inserted }) {
                throw .notOneRun("\(subjects[index].name) × \(twice.rule) appears in two reports")
            }
            subjects[index].results = results.sorted { order[$0.rule, default: .max] < order[$1.rule, default: .max] }
        }
        let timing = reports.dropFirst().reduce(first.timing) { loosest, report in
            Timing(
                mustHappen: max(loosest.mustHappen, report.timing.mustHappen),
                quietWindow: max(loosest.quietWindow, report.timing.quietWindow),
                lateness: max(loosest.lateness, report.timing.lateness),
                ruleTimeout: max(loosest.ruleTimeout, report.timing.ruleTimeout)
            )
        }
        return ConformanceReport(
            rules: first.rules, subjects: subjects, timing: timing, timingScale: first.timingScale, shard: nil,
            gate: gate, environment: first.environment
        )
    }
}
