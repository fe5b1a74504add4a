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
    static let all: [ConformanceSubject] = [
        ConformanceSubject(name: "stdlib-continuous-clock", clock: { ClockUnderTest(ContinuousClock()) }),
        ConformanceSubject(name: "stdlib-suspending-clock", clock: { ClockUnderTest(SuspendingClock()) }),
        ConformanceSubject(
            name: "swift-clocks-testclock",
            clock: {
                // Advanced from a task (its `advance` and `run` are async); its sleepers run
                // wherever the suite puts them, and it lets them run by yielding many times.
                ClockUnderTest(TestClock(), advance: { await $0.advance(by: $1) }, run: { await $0.run() })
            }
            // By design, pinned by its own test (`testSleepUntilExactlyNow`).
        ).declaring(.dueSleep(.parksUntilNextAdvance)),
        ConformanceSubject(name: "swift-clocks-immediateclock", clock: { ClockUnderTest(immediate: ImmediateClock()) }),
        ConformanceSubject(
            name: "dispatch-queue-executor",
            executor: {
                ExecutorUnderTest(
                    serial: DispatchQueueExecutor(label: "dispatch-queue-executor"), checksIsolation: false)
            }),
        ConformanceSubject(
            name: "nio-eventloop-executor",
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
