/// Where a subject comes from; reports keep them apart.
public enum SubjectOrigin: String, Codable, Sendable, CaseIterable {
    /// One of this package's reference schedulers.
    case reference
    /// Somebody else's scheduler, behind an adapter.
    case thirdParty = "third-party"
    /// A deliberately broken scheduler that the suite must reject.
    case mutant
}
