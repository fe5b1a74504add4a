/// Why a scheduler refused a request. A scheduler that throws one of these keeps working.
public enum SchedulerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The scheduler has no timers (`schedule(at:)` / `schedule(after:)`).
    case timersUnsupported(scheduler: String)
    /// The scheduler cannot run repeating actions.
    case repeatingUnsupported(scheduler: String)
    /// A repeating interval was zero or negative.
    case invalidInterval(Duration)
    /// A leeway was negative.
    case invalidLeeway(Duration)
    /// A time given in seconds was NaN or infinite.
    case notFinite(seconds: Double)
    /// A time or length of time does not fit in a signed 64-bit count of nanoseconds.
    case overflow(String)
    /// The call must be made on the main thread.
    case notOnMainThread
    /// An executor needs a serial scheduler, and this one does not claim to be.
    case notSerial(scheduler: String)

    public var description: String {
        switch self {
        case .timersUnsupported(let name): "scheduler '\(name)' has no timers"
        case .repeatingUnsupported(let name): "scheduler '\(name)' cannot repeat actions"
        case .invalidInterval(let interval): "repeating interval must be > 0, got \(interval)"
        case .invalidLeeway(let leeway): "leeway must be >= 0, got \(leeway)"
        case .notFinite(let seconds): "time must be finite, got \(seconds) seconds"
        case .overflow(let what): "\(what) overflows a 64-bit nanosecond count"
        case .notOnMainThread: "must be called on the main thread"
        case .notSerial(let name): "scheduler '\(name)' is not serial, so it cannot be an executor's"
        }
    }
}
