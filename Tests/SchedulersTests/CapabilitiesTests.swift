import Schedulers
import Testing

@Suite struct CapabilitiesTests {
    /// Reports and command lines spell capabilities by these names, and stored reports keep
    /// their bits: both are stable.
    @Test func everyCapabilityHasItsOwnBitAndItsStableName() {
        let named = SchedulerCapabilities.named
        #expect(
            named.map(\.name) == [
                "asynchronous", "synchronous", "serial", "concurrent", "cancellation", "timers", "repeating",
                "virtualTime", "tracksCurrent", "trampoline", "mainThread", "subscription", "cancelsWhenReleased",
                "threadConfined", "singleStep", "taskExecutor", "checksIsolation",
            ])
        #expect(named.map(\.capability.rawValue) == named.indices.map { 1 << UInt32($0) })
        #expect(SchedulerCapabilities.timers.rawValue == 1 << 5)
        #expect(SchedulerCapabilities([.serial, .timers]).names == ["serial", "timers"])
        #expect(SchedulerCapabilities([.serial, .timers]).description == "[serial, timers]")
    }
}
