import Dispatch
import Schedulers

/// Runs an async body to completion from synchronous code, on a detached task, blocking the
/// calling thread: for synchronous APIs (the commands, the rules) that need an async library.
/// Never call it from a task of the cooperative pool that `body` might need.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Lock<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }!
}
