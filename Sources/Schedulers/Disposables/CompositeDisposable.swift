import Synchronization

/// A disposable that disposes a changing set of other disposables together.
///
/// Adding to a composite that is already disposed disposes the newcomer at once. Members
/// are disposed outside the lock, so a member may touch the composite while being disposed.
public final class CompositeDisposable: Disposable {
    /// Identifies one member, for removing it without disposing it.
    public struct Key: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct State {
        var disposed = false
        var nextKey: UInt64 = 0
        // An array, not a dictionary: composites are small and short-lived members are
        // removed from the end, where a linear search finds them first (as ReactiveSwift's
        // Bag and ReactiveCocoa's array do).
        var members: [(key: UInt64, disposable: any Disposable)] = []
    }

    private let state = Lock(State())
    /// Mirrors `state.disposed` for lock-free reads: recursion checks it on every run.
    private let disposed = Atomic<Bool>(false)

    /// An empty composite, not yet disposed.
    public init() {}

    /// Adds `disposable`; returns its key, or `nil` if this composite was already
    /// disposed, in which case `disposable` has been disposed instead.
    @discardableResult
    public func add(_ disposable: any Disposable) -> Key? {
        let key: UInt64? = state.withLock { state in
            guard !state.disposed else { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.members.append((key, disposable))
            return key
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return Key(value: key)
    }

    /// Adds a disposable that runs `action` when this composite is disposed.
    @discardableResult
    public func add(_ action: @escaping @Sendable () -> Void) -> Key? {
        add(ActionDisposable(action))
    }

    /// Removes the member with `key` without disposing it; a no-op if it is gone.
    public func remove(_ key: Key) {
        // The member is released after the lock is dropped: its deinit may run user code.
        _ = state.withLock { state -> (any Disposable)? in
            guard let index = state.members.lastIndex(where: { $0.key == key.value }) else { return nil }
            return state.members.remove(at: index).disposable
        }
    }

    /// The number of members not yet removed or disposed.
    public var count: Int { state.withLock { $0.members.count } }

    public func dispose() {
        let members = state.withLock { state -> [(key: UInt64, disposable: any Disposable)] in
            guard !state.disposed else { return [] }
            state.disposed = true
            disposed.store(true, ordering: .releasing)
            defer { state.members = [] }
            return state.members
        }
        for member in members { member.disposable.dispose() }
    }

    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}
