import Schedulers

/// Swift concurrency as schedulers: an actor (serial) and the global concurrent executor,
/// with `Task.sleep` for timers and `Task.cancel` for cancellation (checked before the
/// action runs, as the field's cooperative cancellation does).
final class TaskSubject: Scheduler {
    private actor Serial {
        /// Checked here, on the actor, so a cancel that came while waiting for it counts.
        func run(_ action: SchedulerAction) {
            guard !Task.isCancelled else { return }
            action()
        }
    }

    let name: String
    let capabilities: SchedulerCapabilities
    private let serial: Serial?

    init(name: String, serial: Bool) {
        self.name = name
        self.serial = serial ? Serial() : nil
        capabilities = [.asynchronous, serial ? .serial : .concurrent, .cancellation, .timers]
    }

    var now: SchedulerTime { uptime() }

    func schedule(_ action: @escaping SchedulerAction) -> (any Disposable)? {
        start(after: nil, action)
    }

    func schedule(at deadline: SchedulerTime, _ action: @escaping SchedulerAction) throws(SchedulerError) -> (any Disposable)? {
        start(after: now.duration(to: deadline), action)
    }

    private func start(after delay: Duration?, _ action: @escaping SchedulerAction) -> any Disposable {
        let serial = self.serial
        return TaskHandle(Task.detached {
            if let delay, delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            if let serial { await serial.run(action) } else { action() }
        })
    }
}

/// A task as a disposable.
final class TaskHandle: Disposable {
    private let task: Task<Void, Never>
    init(_ task: Task<Void, Never>) { self.task = task }
    func dispose() { task.cancel() }
    var isDisposed: Bool { task.isCancelled }
}
