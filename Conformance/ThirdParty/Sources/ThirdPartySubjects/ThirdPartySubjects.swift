import Dispatch
import Foundation
import NIOEmbedded
import OpenCombine
import OpenCombineDispatch
import OpenCombineFoundation
import SchedulerConformance
import Schedulers

/// Schedulers, clocks and executors other people wrote, behind adapters that claim only what each really does.
/// `make matrix` checks them; their deviations never fail the build.
public enum ThirdPartySubjects {
    /// Every third-party subject.
    public static let all: [ConformanceSubject] =
        [
            subject("dispatch-serial") { name in DispatchQueueSubject(name: name, concurrent: false) },
            subject("dispatch-concurrent") { name in DispatchQueueSubject(name: name, concurrent: true) },
            subject("foundation-operationqueue-serial") { name in
                OperationQueueSubject(name: name, maxConcurrentOperations: 1)
            },
            subject("foundation-operationqueue") { name in
                OperationQueueSubject(
                    name: name, maxConcurrentOperations: OperationQueue.defaultMaxConcurrentOperationCount)
            },
            subject("opencombine-dispatchqueue") { name in
                CombineSubject(
                    name: name, capabilities: combineSerial,
                    base: DispatchQueue(label: "opencombine-dispatchqueue").ocombine)
            },
            subject("opencombine-operationqueue") { name in
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                return CombineSubject(name: name, capabilities: combineSerial, base: queue.ocombine)
            },
            subject("opencombine-immediate") { name in
                CombineSubject(name: name, capabilities: [.synchronous], base: ImmediateScheduler.shared)
            },
            // A `Foundation.Timer` whose own action outlasts its period is rescheduled for the
            // next grid point after the action returned: the points it missed never run.
            subject("opencombine-runloop") { name in
                CombineSubject(
                    name: name, capabilities: combineSerial,
                    base: RunLoopThread.shared.runLoop.ocombine)
            }.declaring(.missedTicks(.skipped)),
            subject("foundation-runloop") { name in RunLoopSubject(name: name) }.declaring(.missedTicks(.skipped)),
            // `scheduleRepeatedTask` is documented as a fixed delay between one run's end and
            // the next one's start.
            subject("nio-eventloop") { name in EventLoopSubject(name: name) }.declaring(.repeatPolicy(.fixedDelay)),
            subject("nio-embedded") { name in NIOVirtualTimeSubject(name: name, loop: .embedded(EmbeddedEventLoop())) },
            subject("nio-asynctesting") { name in
                NIOVirtualTimeSubject(name: name, loop: .asyncTesting(NIOAsyncTestingEventLoop()))
            },
            subject("swift-actor") { name in TaskSubject(name: name, target: .actor) },
            subject("swift-serial-executor") { name in TaskSubject(name: name, target: .serialExecutor) },
            subject("swift-global-executor") { name in TaskSubject(name: name, target: .global) },
        ] + CombineSchedulersSubjects.all + ClockAndExecutorSubjects.all

    /// What OpenCombine's serial schedulers give: timers and repeating, but no one-shot
    /// cancellable, and repeating cancellables that cancel when released.
    private static let combineSerial: SchedulerCapabilities = [
        .asynchronous, .serial, .timers, .repeating, .cancelsWhenReleased,
    ]

    /// A third-party subject; `make` gets the subject's name for its scheduler.
    private static func subject(_ name: String, _ make: @escaping @Sendable (String) -> any Schedulers.Scheduler)
        -> ConformanceSubject
    {
        ConformanceSubject(name: name, origin: .thirdParty) { make(name) }
    }
}
