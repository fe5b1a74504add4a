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
        var members: [UInt64: any Disposable] = [:]
    }

    private let state = Mutex(State())

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
            state.members[key] = disposable
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
        _ = state.withLock { $0.members.removeValue(forKey: key.value) }
    }

    /// The number of members not yet removed or disposed.
    public var count: Int { state.withLock { $0.members.count } }

    public func dispose() {
        let members = state.withLock { state -> [UInt64: any Disposable] in
            guard !state.disposed else { return [:] }
            state.disposed = true
            defer { state.members = [:] }
            return state.members
        }
        for member in members.values { member.dispose() }
    }

    public var isDisposed: Bool { state.withLock { $0.disposed } }
}
