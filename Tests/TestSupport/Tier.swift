import Foundation
import Testing

/// Which of the two tiers of tests this process runs: the per-change gate (`make test`) or the
/// depth (`make nightly`), told by `SCHEDULERS_TIER=nightly` in the environment.
///
/// The gate judges what is deterministic or cheap; a test that gathers evidence of time or of a
/// race for minutes, repeats a verdict to show it holds every run, or needs a tool the gate does
/// not install (headless Chromium, callgrind) runs in the nightly tier, where nothing is dropped.
public enum Tier {
    /// True when the nightly tier was asked for.
    public static let isNightly = ProcessInfo.processInfo.environment["SCHEDULERS_TIER"] == "nightly"

    /// How many times a test that shows a verdict is the same in every run repeats it: once in
    /// the gate, which shows the verdict, `nightly` times in the nightly tier, which shows it holds.
    public static func runs(nightly: Int) -> Int { isNightly ? nightly : 1 }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only in `make nightly` (`SCHEDULERS_TIER=nightly`), saying why
    /// the gate leaves it out.
    public static func nightly(_ why: Comment) -> Self {
        .enabled(if: Tier.isNightly, "nightly tier (SCHEDULERS_TIER=nightly): \(why)")
    }
}
