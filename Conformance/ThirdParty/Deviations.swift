/// Why each third-party subject fails the rules it fails, as found by `make matrix` and
/// read from the libraries' sources: a bug of theirs, or a difference of semantics.
/// The matrix generator prints these under the table; a failure without an entry is
/// printed as unexplained, to be investigated.
public enum Deviations {
    /// Keyed by "subject rule-ID".
    public static let explained: [String: String] = [
        "swift-actor ORD-3": "legitimate difference: an actor serialises its work but unstructured `Task`s reach it in no promised order, so actions from one producer can run out of order under contention. The adapter still claims `serial` to show it; a FIFO needs a custom `SerialExecutor` with its own queue.",
        "swift-actor ORD-1": "legitimate difference: as ORD-3 — task creation order is not execution order.",
    ]
}
