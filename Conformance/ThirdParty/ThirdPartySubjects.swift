import Dispatch
import Foundation
import NIOEmbedded
import OpenCombine
import OpenCombineDispatch
import OpenCombineFoundation
import SchedulerConformance
import Schedulers

/// Schedulers other people wrote, behind adapters that claim only what each really does.
/// `make matrix` checks them; their deviations never fail the build.
public enum ThirdPartySubjects {
    /// Every third-party subject.
    public static let all: [ConformanceSubject] = [
        subject("dispatch-serial") { DispatchQueueSubject(name: "dispatch-serial", concurrent: false) },
        subject("dispatch-concurrent") { DispatchQueueSubject(name: "dispatch-concurrent", concurrent: true) },
        subject("foundation-operationqueue-serial") { OperationQueueSubject(name: "foundation-operationqueue-serial", maxConcurrentOperations: 1) },
        subject("foundation-operationqueue") {
            OperationQueueSubject(name: "foundation-operationqueue", maxConcurrentOperations: OperationQueue.defaultMaxConcurrentOperationCount)
        },
        subject("opencombine-dispatchqueue") {
            CombineSubject(name: "opencombine-dispatchqueue", capabilities: [.asynchronous, .serial, .timers, .repeating, .cancelsWhenReleased],
                           base: DispatchQueue(label: "opencombine-dispatchqueue").ocombine)
        },
        subject("opencombine-operationqueue") {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            return CombineSubject(name: "opencombine-operationqueue", capabilities: [.asynchronous, .serial, .timers, .repeating, .cancelsWhenReleased], base: queue.ocombine)
        },
        subject("opencombine-immediate") {
            CombineSubject(name: "opencombine-immediate", capabilities: [.synchronous], base: ImmediateScheduler.shared)
        },
        subject("opencombine-runloop") {
            CombineSubject(name: "opencombine-runloop", capabilities: [.asynchronous, .serial, .timers, .repeating, .cancelsWhenReleased],
                           base: RunLoopThread.shared.runLoop.ocombine)
        },
        subject("foundation-runloop") { RunLoopSubject(name: "foundation-runloop") },
        subject("nio-eventloop") { EventLoopSubject(name: "nio-eventloop") },
        subject("nio-embedded") { NIOVirtualTimeSubject(name: "nio-embedded", loop: .embedded(EmbeddedEventLoop())) },
        subject("nio-asynctesting") { NIOVirtualTimeSubject(name: "nio-asynctesting", loop: .asyncTesting(NIOAsyncTestingEventLoop())) },
        subject("swift-actor") { TaskSubject(name: "swift-actor", target: .actor) },
        subject("swift-serial-executor") { TaskSubject(name: "swift-serial-executor", target: .serialExecutor) },
        subject("swift-global-executor") { TaskSubject(name: "swift-global-executor", target: .global) },
    ]

    private static func subject(_ name: String, _ make: @escaping @Sendable () -> any Schedulers.Scheduler) -> ConformanceSubject {
        ConformanceSubject(name: name, origin: .thirdParty, make: make)
    }
}
