/// A disposable holding one replaceable inner disposable.
///
/// Replacing the inner disposable disposes the previous one; setting one after this
/// handle was disposed disposes the newcomer at once.
public final class SerialDisposable: Disposable {
    private struct State {
        var disposed = false
        var inner: (any Disposable)?
    }

    private let state = Lock(State())

    /// A handle holding `inner`, or nothing.
    public init(_ inner: (any Disposable)? = nil) {
        state.withLock { $0.inner = inner }
    }

    /// The current inner disposable. Setting disposes the one it replaces.
    public var inner: (any Disposable)? {
        get { state.withLock { $0.inner } }
        set {
            let (previous, refused) = state.withLock { state -> ((any Disposable)?, Bool) in
                guard !state.disposed else { return (nil, true) }
                defer { state.inner = newValue }
                return (state.inner, false)
            }
            if refused { newValue?.dispose() }
            if previous !== newValue { previous?.dispose() }
        }
    }

    public func dispose() {
        let inner = state.withLock { state -> (any Disposable)? in
            guard !state.disposed else { return nil }
            state.disposed = true
            return state.inner.take()
        }
        inner?.dispose()
    }

    public var isDisposed: Bool { state.withLock { $0.disposed } }
}
