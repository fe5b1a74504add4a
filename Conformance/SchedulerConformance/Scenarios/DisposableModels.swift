import Schedulers

/// A set of disposables disposed together, as `CompositeDisposable` is: what the
/// disposables' model-checked scenarios call.
public protocol DisposableSet: Disposable {
    /// What ``add(_:)`` returns, for ``remove(_:)``.
    associatedtype Key: Sendable
    /// Adds `disposable`; nil (having disposed it) when the set was disposed already.
    func add(_ disposable: any Disposable) -> Key?
    /// Removes a member without disposing it.
    func remove(_ key: Key)
    /// The members not yet removed nor disposed.
    var count: Int { get }
}

/// A handle holding one replaceable disposable, as `SerialDisposable` is.
public protocol ReplaceableDisposable: Disposable {
    /// The held disposable; setting disposes the one it replaces, or the newcomer when the
    /// handle was disposed already.
    var inner: (any Disposable)? { get set }
}

extension CompositeDisposable: DisposableSet {}
extension SerialDisposable: ReplaceableDisposable {}

/// What happens to the members of a composite or serial disposable: each is disposed once,
/// and only after the call that makes its disposal owed (a dispose of the whole, a
/// replacement, an add refused because the whole was disposed) took effect.
public enum DisposableOutcome: Hashable, Sendable, CustomStringConvertible {
    case done
    /// An add returned a key.
    case added
    /// An add found the whole disposed and disposed the newcomer instead.
    case refused
    /// A remove found no key: the add that makes it had not returned, or was refused.
    case noKey
    case count(Int)
    case isDisposed(Bool)
    /// The member a serial disposable holds.
    case holds(Int?)
    /// The members still owed a dispose when every call had returned: none, when correct.
    case owed([Int])

    public var description: String {
        switch self {
        case .done: "done"
        case .added: "added"
        case .refused: "refused (already disposed)"
        case .noKey: "no key yet"
        case .count(let n): "count \(n)"
        case .isDisposed(let flag): flag ? "disposed" : "not disposed"
        case .holds(let member): member.map { "holds #\($0)" } ?? "holds nothing"
        case .owed(let members):
            members.isEmpty ? "nothing owed" : "#\(members.map(String.init).joined(separator: ", #")) never disposed"
        }
    }
}

/// The calls on a composite or serial disposable and what its members saw. Members are
/// numbered in the order the scenario makes them.
public enum DisposableOperation: Hashable, Sendable, CustomStringConvertible {
    /// Composite: adds member k. Serial: makes member k the one held.
    case add(Int)
    /// Composite: removes member k by its key.
    case remove(Int)
    case dispose
    /// Composite: reads `count`. Serial: reads which member is held.
    case read
    case isDisposed
    /// Observed: member k was disposed.
    case memberDisposed(Int)
    /// After every call: which members are still owed a dispose.
    case settled

    public var description: String {
        switch self {
        case .add(let k): "add #\(k)"
        case .remove(let k): "remove #\(k)"
        case .dispose: "dispose"
        case .read: "read"
        case .isDisposed: "isDisposed"
        case .memberDisposed(let k): "#\(k) disposed"
        case .settled: "every call returned"
        }
    }
}

/// The disposables' specification, from the semantics (§1: disposing is idempotent and
/// thread-safe) and `CompositeDisposable` and `SerialDisposable`'s own promises. One
/// model serves both: a composite keeps any number of members, a serial handle one, which
/// a newcomer replaces (and the one replaced is owed a dispose).
public struct DisposableModel: SequentialModel, CustomStringConvertible {
    public typealias Operation = DisposableOperation
    public typealias Outcome = DisposableOutcome

    /// Whether this is a serial handle (one member at a time) rather than a composite.
    let serial: Bool
    var disposed = false
    /// Members held, oldest first.
    var members: [Int] = []
    /// Members whose dispose is owed and has not been seen.
    var owed: Set<Int> = []

    /// The model of a composite, or (`serial`) of a serial disposable; holding `member`
    /// from the start (a serial disposable made with an inner one, an action disposable's
    /// action) when one is given.
    public init(serial: Bool, holding member: Int? = nil) {
        self.serial = serial
        self.members = member.map { [$0] } ?? []
    }

    public func apply(_ operation: Operation) -> [(outcome: Outcome, next: DisposableModel)] {
        var next = self
        switch operation {
        case .add(let k):
            if disposed {
                next.owed.insert(k)
                return [(serial ? .done : .refused, next)]
            }
            if serial { next.owed.formUnion(members) }
            next.members = serial ? [k] : members + [k]
            return [(serial ? .done : .added, next)]
        case .remove(let k):
            next.members.removeAll { $0 == k }
            return [(.done, next), (.noKey, self)]
        case .dispose:
            if !disposed {
                next.disposed = true
                next.owed.formUnion(members)
                next.members = []
            }
        case .read:
            return [(serial ? .holds(members.first) : .count(members.count), self)]
        case .isDisposed:
            return [(.isDisposed(disposed), self)]
        case .memberDisposed(let k):
            guard owed.contains(k) else { return [] }
            next.owed.remove(k)
        case .settled:
            return [(.owed(owed.sorted()), self)]
        }
        return [(.done, next)]
    }

    public var description: String {
        let held = members.isEmpty ? "holds nothing" : "holds #" + members.map(String.init).joined(separator: ", #")
        let debts =
            owed.isEmpty ? "" : "; owes a dispose to #" + owed.sorted().map(String.init).joined(separator: ", #")
        return (disposed ? "disposed; " : "") + held + debts
    }
}
