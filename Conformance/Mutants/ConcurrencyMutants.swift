import Dispatch
import SchedulerProbes
import SchedulerVocabulary
import Schedulers
import Synchronization

/// What a concurrent mutant claims: everything a concurrent Dispatch scheduler does.
private let concurrentClaims: SchedulerCapabilities = [
    .asynchronous, .concurrent, .cancellation, .timers, .repeating, .tracksCurrent,
]

/// A concurrent queue, but every action runs under one lock ("to keep user code safe"):
/// workers overlap, actions never do.
final class SerialisedByLockMutant: MutantBase, @unchecked Sendable {
    private let exclusive = Lock<Void>(())

    init(_ name: String) {
        super.init(name, claims: concurrentClaims, queue: DispatchQueue(label: name, attributes: .concurrent))
    }

    override func run(_ action: @escaping SchedulerAction, unless disposable: BooleanDisposable) {
        exclusive.withLock { _ in super.run(action, unless: disposable) }
    }
}

/// One serial lane per calling thread: work from different producers runs in parallel, but
/// one producer's actions never overlap each other.
final class LanePerCallerMutant: MutantBase, @unchecked Sendable {
    private let lanes = Lock<[UInt: DispatchQueue]>([:])

    init(_ name: String) {
        super.init(name, claims: concurrentClaims, queue: DispatchQueue(label: name, attributes: .concurrent))
    }

    override func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let caller = ThreadProbe.id
        let lane = lanes.withLock { lanes in
            if let lane = lanes[caller] { return lane }
            let lane = DispatchQueue(label: "lane \(caller)", target: queue)
            lanes[caller] = lane
            return lane
        }
        let disposable = BooleanDisposable()
        lane.async { self.run(action, unless: disposable) }
        return disposable
    }
}

extension Mutants {
    /// The mutants of this file, each registered beside its class: its name, its fault and
    /// the rule that must catch it, written once.
    static let concurrency: [Mutant] = [
        mutant("serialised-by-lock", "a concurrent queue, every action under one lock", .thr4) {
            SerialisedByLockMutant($0)
        },
        mutant("lane-per-caller", "one serial lane per calling thread", .thr4) { LanePerCallerMutant($0) },
    ]
}
