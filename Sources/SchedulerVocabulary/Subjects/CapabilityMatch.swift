import Schedulers

extension SchedulerCapabilities {
    /// Why a check needing all of `requires`, one of `anyOf` (when not empty) and none of
    /// `excludes` does not apply to these capabilities, or `nil` when it does. Rules and
    /// stress scenarios select their subjects with it.
    public func mismatch(
        requires: SchedulerCapabilities, anyOf: SchedulerCapabilities, excludes: SchedulerCapabilities
    ) -> String? {
        let missing = requires.subtracting(self)
        if !missing.isEmpty { return "does not claim \(missing.names.joined(separator: ", "))" }
        if !anyOf.isEmpty, anyOf.isDisjoint(with: self) {
            return "claims none of \(anyOf.names.joined(separator: ", "))"
        }
        let excluded = excludes.intersection(self)
        if !excluded.isEmpty { return "claims \(excluded.names.joined(separator: ", "))" }
        return nil
    }
}
