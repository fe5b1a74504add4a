import Foundation
import SchedulerProbes

/// Work the commands spread over threads of their own.
package enum Parallel {
    /// `body(index)` for every index below `count`, at most `width` at a time, each on a
    /// thread of the command's own (the work mostly waits on worker processes, and Dispatch's
    /// pool would hold its threads from the rules' own queues); the results in index order.
    package static func map<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Box<[Int: T]>([:])
        let next = Box(0)
        let group = DispatchGroup()
        for _ in 0..<min(max(width, 1), count) {
            group.enter()
            Thread {
                while case let index = next.update({ value in
                    defer { value += 1 }
                    return value
                }), index < count {
                    let result = body(index)
                    results.update { $0[index] = result }
                }
                group.leave()
            }.start()
        }
        group.wait()
        return (0..<count).map { results.value[$0]! }
    }
}
