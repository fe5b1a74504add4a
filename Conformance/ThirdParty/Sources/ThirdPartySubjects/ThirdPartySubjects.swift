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
            subject(.dispatchSerial) { name in DispatchQueueSubject(name: name, concurrent: false) },
            subject(.dispatchConcurrent) { name in DispatchQueueSubject(name: name, concurrent: true) },
            subject(.foundationOperationQueueSerial) { name in
                OperationQueueSubject(name: name, maxConcurrentOperations: 1)
            },
            subject(.foundationOperationQueue) { name in
                OperationQueueSubject(
                    name: name, maxConcurrentOperations: OperationQueue.defaultMaxConcurrentOperationCount)
            },
            subject(.openCombineDispatchQueue) { name in
                CombineSubject(
                    name: name, capabilities: combineSerial,
                    base: DispatchQueue(label: "opencombine-dispatchqueue").ocombine)
            },
            subject(.openCombineOperationQueue) { name in
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                return CombineSubject(name: name, capabilities: combineSerial, base: queue.ocombine)
            },
            subject(.openCombineImmediate) { name in
                CombineSubject(name: name, capabilities: [.synchronous], base: ImmediateScheduler.shared)
            },
            // A `Foundation.Timer` whose own action outlasts its period is rescheduled for the
            // next grid point after the action returned: the points it missed never run.
            subject(.openCombineRunLoop) { name in
                CombineSubject(
                    name: name, capabilities: combineSerial,
                    base: RunLoopThread.shared.runLoop.ocombine)
            }.declaring(.missedTicks(.skipped)),
            subject(.foundationRunLoop) { name in RunLoopSubject(name: name) }.declaring(.missedTicks(.skipped)),
            // `scheduleRepeatedTask` is documented as a fixed delay between one run's end and
            // the next one's start.
            subject(.nioEventLoop) { name in EventLoopSubject(name: name) }.declaring(.repeatPolicy(.fixedDelay)),
            subject(.nioEmbedded) { name in NIOVirtualTimeSubject(name: name, loop: .embedded(EmbeddedEventLoop())) },
            subject(.nioAsyncTesting) { name in
                NIOVirtualTimeSubject(name: name, loop: .asyncTesting(NIOAsyncTestingEventLoop()))
            },
            subject(.swiftActor) { name in TaskSubject(name: name, target: .actor) },
            subject(.swiftSerialExecutor) { name in TaskSubject(name: name, target: .serialExecutor) },
            subject(.swiftGlobalExecutor) { name in TaskSubject(name: name, target: .global) },
        ] + CombineSchedulersSubjects.all + ClockAndExecutorSubjects.all

    /// What OpenCombine's serial schedulers give: timers and repeating, but no one-shot
    /// cancellable, and repeating cancellables that cancel when released.
    private static let combineSerial: SchedulerCapabilities = [
        .asynchronous, .serial, .timers, .repeating, .cancelsWhenReleased,
    ]

    /// A third-party subject; `make` gets the subject's name for its scheduler.
    static func subject(
        _ name: ThirdPartySubjectName, _ make: @escaping @Sendable (String) -> any Schedulers.Scheduler
    ) -> ConformanceSubject {
        ConformanceSubject(name: name.rawValue, origin: .thirdParty) { make(name.rawValue) }
    }
}

/// The matrix's subjects by name, so the explanations and the subjects that they name
/// cannot drift apart: each case's text is the name reports print.
public enum ThirdPartySubjectName: String, CaseIterable, Sendable {
    case dispatchSerial = "dispatch-serial"
    case dispatchConcurrent = "dispatch-concurrent"
    case foundationOperationQueueSerial = "foundation-operationqueue-serial"
    case foundationOperationQueue = "foundation-operationqueue"
    case openCombineDispatchQueue = "opencombine-dispatchqueue"
    case openCombineOperationQueue = "opencombine-operationqueue"
    case openCombineImmediate = "opencombine-immediate"
    case openCombineRunLoop = "opencombine-runloop"
    case foundationRunLoop = "foundation-runloop"
    case nioEventLoop = "nio-eventloop"
    case nioEmbedded = "nio-embedded"
    case nioAsyncTesting = "nio-asynctesting"
    case swiftActor = "swift-actor"
    case swiftSerialExecutor = "swift-serial-executor"
    case swiftGlobalExecutor = "swift-global-executor"
    case combineSchedulersTest = "combine-schedulers-test"
    case combineSchedulersImmediate = "combine-schedulers-immediate"
    case stdlibContinuousClock = "stdlib-continuous-clock"
    case stdlibSuspendingClock = "stdlib-suspending-clock"
    case swiftClocksTestClock = "swift-clocks-testclock"
    case swiftClocksImmediateClock = "swift-clocks-immediateclock"
    case dispatchQueueExecutor = "dispatch-queue-executor"
    case nioEventLoopExecutor = "nio-eventloop-executor"
}
