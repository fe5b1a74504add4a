import SchedulerProbes
import Schedulers
import Synchronization
import Testing

@testable import SchedulerConformance

/// The adversaries' window: a microsecond, or as much longer as the sanitizer slows the code
/// around it, so that it is as narrow against that code as in a plain build.
let racyWindow = Duration.nanoseconds(Int64(1_000 * ThreadSanitizerBuild.slowdown))

/// A composite disposable correct but for one fault, in a window of a microsecond.
final class RacyComposite: DisposableSet {
    enum Fault: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// An add reads the disposed flag, then appends under the lock without reading it
        /// again: a dispose in between never disposes the newcomer.
        case addChecksThenAppends
        /// A remove finds its member's position in one critical section and removes that
        /// position in another: a concurrent remove shifts the array, and a different member
        /// is dropped, never to be disposed.
        case removeByStaleIndex

        var testDescription: String { rawValue }
    }

    private struct State {
        var disposed = false
        var nextKey = 0
        var members: [(key: Int, disposable: any Disposable)] = []
    }

    let fault: Fault
    private let state = Lock(State())
    private let disposed = Atomic<Bool>(false)

    init(_ fault: Fault) { self.fault = fault }

    func add(_ disposable: any Disposable) -> Int? {
        if fault == .addChecksThenAppends {
            guard !disposed.load(ordering: .acquiring) else {
                disposable.dispose()
                return nil
            }
            spin(racyWindow)
        }
        let key: Int? = state.withLock { state in
            guard fault == .addChecksThenAppends || !state.disposed else { return nil }
            defer { state.nextKey += 1 }
            state.members.append((state.nextKey, disposable))
            return state.nextKey
        }
        if key == nil { disposable.dispose() }
        return key
    }

    func remove(_ key: Int) {
        guard fault == .removeByStaleIndex else {
            return state.withLock { $0.members.removeAll { $0.key == key } }
        }
        guard let index = state.withLock({ $0.members.firstIndex { $0.key == key } }) else { return }
        spin(racyWindow)
        state.withLock { if index < $0.members.count { $0.members.remove(at: index) } }
    }

    var count: Int { state.withLock { $0.members.count } }

    func dispose() {
        let members = state.withLock { state -> [any Disposable] in
            guard !state.disposed else { return [] }
            state.disposed = true
            disposed.store(true, ordering: .releasing)
            defer { state.members = [] }
            return state.members.map(\.disposable)
        }
        for member in members { member.dispose() }
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}

/// A serial disposable correct but for one fault, in a window of a microsecond.
final class RacySerial: ReplaceableDisposable {
    enum Fault: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// Setting takes the previous member in one critical section and stores the new one
        /// in another: of two sets at once, one replaces a member nobody disposes.
        case setReadsThenWrites
        /// Disposing takes the held member in one critical section and marks the handle
        /// disposed in another: a member set in between is held by a disposed handle forever.
        case disposeFlagsLate

        var testDescription: String { rawValue }
    }

    private struct State {
        var disposed = false
        var inner: (any Disposable)?
    }

    let fault: Fault
    private let state = Lock(State())

    init(_ fault: Fault) { self.fault = fault }

    var inner: (any Disposable)? {
        get { state.withLock { $0.inner } }
        set {
            if fault == .setReadsThenWrites {
                let (previous, refused) = state.withLock { ($0.inner, $0.disposed) }
                spin(racyWindow)
                if refused {
                    newValue?.dispose()
                    return
                }
                state.withLock { $0.inner = newValue }
                previous?.dispose()
                return
            }
            let (previous, refused) = state.withLock { state -> ((any Disposable)?, Bool) in
                guard !state.disposed else { return (nil, true) }
                defer { state.inner = newValue }
                return (state.inner, false)
            }
            if refused { newValue?.dispose() }
            previous?.dispose()
        }
    }

    func dispose() {
        if fault == .disposeFlagsLate {
            let inner = state.withLock { $0.inner.take() }
            spin(racyWindow)
            let first = state.withLock { state in
                defer { state.disposed = true }
                return !state.disposed
            }
            if first { inner?.dispose() }
            return
        }
        let inner = state.withLock { state -> (any Disposable)? in
            guard !state.disposed else { return nil }
            state.disposed = true
            return state.inner.take()
        }
        inner?.dispose()
    }

    var isDisposed: Bool { state.withLock { $0.disposed } }
}

/// An action disposable that checks its flag and sets it in two steps, a microsecond apart:
/// two disposes at once both run the action.
final class RacyAction: Disposable {
    private let action: @Sendable () -> Void
    private let disposed = Atomic<Bool>(false)

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    func dispose() {
        guard !disposed.load(ordering: .acquiring) else { return }
        spin(racyWindow)
        disposed.store(true, ordering: .releasing)
        action()
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }
}
