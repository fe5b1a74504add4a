import Foundation
import SchedulerProbes
import SchedulerVocabulary
import Schedulers

/// Two threads of its own that every pooled ``FaultyExecutor`` drains on, as executors on a
/// shared thread pool do: each instance is still serial, but its threads are its siblings'
/// threads too. It knows its threads and which of them are running a job of any instance:
/// the two things a careless isolation check reads instead of its own instance's marker.
final class SharedWorkerPool: Sendable {
    /// The one pool; its threads live as long as the process.
    static let shared = SharedWorkerPool(threads: 2)

    private let work = Lock<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)
    private let threads = Lock<Set<UInt>>([])
    private let running = Lock<Set<UInt>>([])

    private init(threads count: Int) {
        let ready = DispatchSemaphore(value: 0)
        for index in 0..<count {
            let thread = Thread { [self] in
                threads.withLock { _ = $0.insert(ThreadProbe.id) }
                ready.signal()
                while true {
                    available.wait()
                    let next = work.withLock { $0.removeFirst() }
                    next()
                }
            }
            thread.name = "shared worker pool \(index)"
            thread.start()
        }
        // Every thread is known before the first job, so `isPoolThread` never misses one.
        for _ in 0..<count { ready.wait() }
    }

    /// Runs `body` on one of the pool's threads, in FIFO order of submission.
    func submit(_ body: @escaping @Sendable () -> Void) {
        work.withLock { $0.append(body) }
        available.signal()
    }

    /// Marks this thread as running a job (of any pooled executor).
    func jobStarted() { running.withLock { _ = $0.insert(ThreadProbe.id) } }
    /// Clears the mark of ``jobStarted()``.
    func jobEnded() { running.withLock { _ = $0.remove(ThreadProbe.id) } }
    /// Whether this thread is running a job of any pooled executor.
    var isRunningJob: Bool { running.withLock { $0.contains(ThreadProbe.id) } }
    /// Whether this thread is one of the pool's.
    var isPoolThread: Bool { threads.withLock { $0.contains(ThreadProbe.id) } }
}
