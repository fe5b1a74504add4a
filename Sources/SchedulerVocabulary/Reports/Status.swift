/// How a check (a conformance rule on a subject, or a stress run) ended.
public enum ResultStatus: String, Codable, Sendable, CaseIterable {
    /// The risky situation the rule judges occurred, and the scheduler behaved.
    case passed
    /// The scheduler misbehaved.
    case failed
    /// The rule does not apply (a capability is not claimed) or cannot run here.
    case skipped
    /// The rule did not finish within its watchdog.
    case timeout
    /// The harness or the subject broke a precondition; nothing was judged.
    case error
    /// The check ran but the situation it judges never occurred (two workers never
    /// overlapped, say): neither a pass nor a failure.
    case inconclusive
    /// No scheduler built on this package's API can fail the rule (the library
    /// guarantees it); it ran as a check of the library, not as a pass of the subject.
    case guaranteed

    /// One character for matrices.
    public var symbol: String {
        switch self {
        case .passed: "✓"
        case .failed: "✗"
        case .skipped: "·"
        case .timeout: "T"
        case .error: "E"
        case .inconclusive: "?"
        case .guaranteed: "G"
        }
    }

    /// Whether this is a failure of some kind: failed, timed out or errored.
    public var isFailure: Bool { self == .failed || self == .timeout || self == .error }

    /// The legend of ``symbol``, for under a matrix.
    public static let legend =
        """
        ✓ passed, ✗ failed, · not claimed (skipped), T timeout, E error, ? inconclusive (the risky situation did not \
        occur), G guaranteed by the protocol.
        """
}

/// Counts of results by status, shared by the conformance and stress reports.
public struct StatusSummary: Codable, Sendable, Equatable {
    public var passed = 0, failed = 0, skipped = 0, timeout = 0, error = 0, inconclusive = 0, guaranteed = 0
    /// Failures, timeouts and errors of results that gate the run (see ``Gate``); the run
    /// fails when this is not zero.
    public var gatingFailures = 0

    /// An empty summary.
    public init() {}

    /// Reads a summary; the `inconclusive` and `guaranteed` counts are absent from reports
    /// written before they existed (a nightly baseline, say) and read as zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        passed = try count(.passed)
        failed = try count(.failed)
        skipped = try count(.skipped)
        timeout = try count(.timeout)
        error = try count(.error)
        inconclusive = try count(.inconclusive)
        guaranteed = try count(.guaranteed)
        gatingFailures = try count(.gatingFailures)
    }

    /// Counts one result; `gates` says whether a failure of it fails the run.
    public mutating func count(_ status: ResultStatus, gates: Bool) {
        switch status {
        case .passed: passed += 1
        case .failed: failed += 1
        case .skipped: skipped += 1
        case .timeout: timeout += 1
        case .error: error += 1
        case .inconclusive: inconclusive += 1
        case .guaranteed: guaranteed += 1
        }
        if gates, status.isFailure { gatingFailures += 1 }
    }

    /// The summary as the one sentence every table and page prints: every count, then the
    /// gating failures that decide the exit status.
    public var sentence: String {
        "\(passed) passed, \(failed) failed, \(skipped) skipped, \(timeout) timed out, \(error) errors, "
            + """
            \(inconclusive) inconclusive, \(guaranteed) guaranteed by the protocol; \(gatingFailures) gating \
            failures
            """
    }
}
