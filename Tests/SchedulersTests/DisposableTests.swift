import Dispatch
import Schedulers
import Synchronization
import Testing

@Suite struct DisposableTests {
    @Test func booleanDisposableIsIdempotent() {
        let disposable = BooleanDisposable()
        #expect(!disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        #expect(disposable.isDisposed)
    }

    @Test func actionDisposableRunsOnceUnderConcurrentDisposal() {
        let runs = Atomic<Int>(0)
        let disposable = ActionDisposable { runs.wrappingAdd(1, ordering: .relaxed) }
        DispatchQueue.concurrentPerform(iterations: 64) { _ in disposable.dispose() }
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(disposable.isDisposed)
    }

    @Test func actionDisposableReleasesItsAction() {
        let box = WeakBox<Token>()
        let disposable: ActionDisposable = {
            let token = Token()
            box.object = token
            return ActionDisposable { _ = token }
        }()
        #expect(box.object != nil)
        disposable.dispose()
        #expect(box.object == nil)
    }

    @Test func compositeDisposesMembersAndLateComers() {
        let composite = CompositeDisposable()
        let first = BooleanDisposable()
        let removed = BooleanDisposable()
        composite.add(first)
        let key = try! #require(composite.add(removed))
        composite.remove(key)
        #expect(composite.count == 1)
        composite.dispose()
        #expect(first.isDisposed)
        #expect(!removed.isDisposed)
        let late = BooleanDisposable()
        #expect(composite.add(late) == nil)
        #expect(late.isDisposed)
    }

    @Test func serialDisposableReplacesAndDisposesPrevious() {
        let serial = SerialDisposable()
        let first = BooleanDisposable()
        let second = BooleanDisposable()
        serial.inner = first
        serial.inner = second
        #expect(first.isDisposed)
        #expect(!second.isDisposed)
        serial.dispose()
        #expect(second.isDisposed)
        let late = BooleanDisposable()
        serial.inner = late
        #expect(late.isDisposed)
        #expect(serial.inner == nil)
    }
}
