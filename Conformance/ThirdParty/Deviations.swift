/// Why each third-party subject fails the rules it fails, as found by `make matrix` and
/// read from the libraries' sources: a bug of theirs, or a difference of semantics.
/// The matrix generator prints these under the table; a failure without an entry is
/// printed as unexplained, to be investigated.
public enum Deviations {
    /// Keyed by "subject rule-ID", or "* rule-ID" for what holds for any subject.
    public static let explained: [String: String] = [
        "* CAN-3": "stochastic rule, reported only: a dispose racing the start. Schedulers that check a cancelled flag and then run (Operation's `isCancelled`, a disposed flag, ReactiveCocoa's model) now and then start an action just after `dispose()` returned; an atomic claim (the reference queue scheduler's) never does.",
        "* TIM-2": "stochastic rule, reported only: lateness beyond the bound calibrated at start-up, usually a loaded machine.",
        "* TIM-6": "stochastic rule, reported only: repeating lateness beyond interval + leeway + the calibrated bound, usually a loaded machine.",
        "swift-actor ORD-3": "legitimate difference: an actor serialises its work but unstructured `Task`s reach it in no promised order, so actions from one producer can run out of order under contention (and a sentinel can overtake the work before it, which is how an action can look missing). The adapter still claims `serial` to show it; a FIFO needs a custom `SerialExecutor` with its own queue.",
        "swift-actor ORD-1": "legitimate difference: as ORD-3 — task creation order is not execution order.",
        "foundation-runloop CAN-9": "looks like a library bug (swift-corelibs-foundation on Linux): a one-shot `Timer` that has fired is never freed, so its block and everything the block captured stay alive. Not checked on Apple's Foundation here.",
        "foundation-runloop CAN-10": "the same leak as CAN-9: a timer whose block returned early (disposed) is never freed either.",
        "foundation-runloop THR-3": "the same leak as CAN-9, a thousand times: every fired timer keeps its block.",
    ]
}
