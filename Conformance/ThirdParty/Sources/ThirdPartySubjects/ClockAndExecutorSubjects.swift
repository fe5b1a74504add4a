import Clocks
import NIOCore
import NIOPosix
import SchedulerConformance
import SchedulerStress
import Schedulers

/// Other people's clocks and executors as subjects: the standard library's real clocks,
/// pointfreeco's swift-clocks, SwiftNIO's event loop as an executor, and a bare serial
/// `DispatchQueue` executor (on Linux, Dispatch's queues are not executors of their own).
enum ClockAndExecutorSubjects {
    private typealias Name = ThirdPartySubjectName

    static let all: [ConformanceSubject] = [
        ConformanceSubject(name: Name.stdlibContinuousClock.rawValue, clock: { ClockUnderTest(ContinuousClock()) }),
        ConformanceSubject(name: Name.stdlibSuspendingClock.rawValue, clock: { ClockUnderTest(SuspendingClock()) }),
        ConformanceSubject(
            name: Name.swiftClocksTestClock.rawValue,
            clock: {
                // Advanced from a task (its `advance` and `run` are async); its sleepers run
                // wherever the suite puts them, and it lets them run by yielding many times.
                ClockUnderTest(TestClock(), advance: { await $0.advance(by: $1) }, run: { await $0.run() })
            }
            // By design, pinned by its own test (`testSleepUntilExactlyNow`).
        ).declaring(.dueSleep(.parksUntilNextAdvance)),
        ConformanceSubject(
            name: Name.swiftClocksImmediateClock.rawValue, clock: { ClockUnderTest(immediate: ImmediateClock()) }),
        ConformanceSubject(
            name: Name.dispatchQueueExecutor.rawValue,
            executor: {
                ExecutorUnderTest(
                    serial: DispatchQueueExecutor(label: "dispatch-queue-executor"), checksIsolation: false)
            }),
        ConformanceSubject(
            name: Name.nioEventLoopExecutor.rawValue,
            executor: {
                // NIO implements `checkIsolated` (a precondition that the loop is current), not
                // `isIsolatingCurrentContext`, whose default answers nil.
                let executor: any SerialExecutor = MultiThreadedEventLoopGroup.singleton.next().executor
                return eventLoopExecutor(executor)
            }),
    ]

    private static func eventLoopExecutor(_ executor: some SerialExecutor) -> ExecutorUnderTest {
        ExecutorUnderTest(serial: executor, checksIsolation: true)
    }
}
