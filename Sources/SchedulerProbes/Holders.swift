import Schedulers

/// A weakly held disposable, readable from any thread.
public final class WeakDisposable: Sendable {
    private struct Weak { weak var object: (any Disposable)? }
    private let storage = Lock(Weak())
    /// An empty box.
    public init() {}
    /// The disposable, while something else keeps it alive.
    public var object: (any Disposable)? {
        get { storage.withLock { $0.object } }
        set { storage.withLock { $0.object = newValue } }
    }
}

/// A weak reference to an object of any kind (a scheduler, a handle), read from any
/// thread: whether something else still keeps the object alive.
public final class WeakObject: Sendable {
    /// @unchecked Sendable: the object is never handed out, only compared with nil.
    private struct Weak: @unchecked Sendable { weak var object: AnyObject? }
    private let storage: Lock<Weak>
    /// A weak reference to `object`.
    public init(_ object: AnyObject?) { storage = Lock(Weak(object: object)) }
    /// Whether the object is still alive.
    public var isAlive: Bool { storage.withLock { $0.object != nil } }
}

/// A strongly held value, set and read from any thread.
public final class Box<Value: Sendable>: Sendable {
    private let storage: Lock<Value>
    /// A box holding `value`.
    public init(_ value: Value) { storage = Lock(value) }
    public var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    /// Changes the value in place and returns what `body` returns.
    public func update<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}

/// Fixed slots that distinct actions write without locks, read after a happens-before
/// edge (a countdown): the harness stays off the measured path.
///
/// @unchecked Sendable: each slot has one writer, and readers wait on that writer first.
public final class Slots<Value: BitwiseCopyable>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Value>

    /// `count` slots, each set to `initial`.
    public init(count: Int, initial: Value) {
        buffer = .allocate(capacity: max(count, 1))
        buffer.initialize(repeating: initial)
    }

    deinit { buffer.deallocate() }

    public subscript(index: Int) -> Value {
        get { buffer[index] }
        set { buffer[index] = newValue }
    }

    public var count: Int { buffer.count }
}
