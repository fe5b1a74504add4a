import Synchronization

/// A cancellation handle: what scheduling returns (Combine calls it `Cancellable`).
///
/// Implementations promise that `dispose()` is idempotent and safe to call from any
/// thread, and that `isDisposed` can be read from any thread.
public protocol Disposable: AnyObject, Sendable {
    /// Cancels what this handle stands for. Only the first call has an effect.
    func dispose()
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
}

/// A disposable that only records whether it was disposed; the owner polls ``isDisposed``.
public final class BooleanDisposable: Disposable {
    private let disposed = Atomic<Bool>(false)

    /// A new, undisposed handle.
    public init() {}

    public func dispose() { disposed.store(true, ordering: .releasing) }

    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}

/// A disposable that runs an action, exactly once, on its first disposal.
///
/// The action is released after it ran, so whatever it captured is freed.
public final class ActionDisposable: Disposable {
    private let action: Lock<(@Sendable () -> Void)?>
    private let disposed = Atomic<Bool>(false)

    /// A handle that runs `action` on the first `dispose()`, on the disposing thread.
    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = Lock(action)
    }

    public func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Taken out of the lock so the action may dispose other handles (or this one) freely.
        action.withLock { $0.take() }?()
    }

    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}
