import Foundation
import Schedulers

/// Foundation's `OperationQueue` as a scheduler: `BlockOperation.cancel()` gives
/// cancellation; it has no timers.
///
/// @unchecked Sendable: `OperationQueue` is documented thread-safe but not marked Sendable.
final class OperationQueueSubject: Scheduler, @unchecked Sendable {
    let name: String
    let capabilities: SchedulerCapabilities
    private let queue = OperationQueue()

    init(name: String, maxConcurrentOperations: Int) {
        self.name = name
        queue.maxConcurrentOperationCount = maxConcurrentOperations
        capabilities = [.asynchronous, maxConcurrentOperations == 1 ? .serial : .concurrent, .cancellation]
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        let operation = BlockOperation(block: action)
        queue.addOperation(operation)
        return OperationHandle(operation)
    }
}

/// An `Operation` as a disposable.
///
/// @unchecked Sendable: `Operation.cancel()` and `isCancelled` are thread-safe.
final class OperationHandle: Disposable, @unchecked Sendable {
    private let operation: Operation
    init(_ operation: Operation) { self.operation = operation }
    func dispose() { operation.cancel() }
    var isDisposed: Bool { operation.isCancelled }
}
