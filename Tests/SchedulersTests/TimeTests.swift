import Schedulers
import Testing

@Suite struct TimeTests {
    @Test func durationsConvertExactlyOrThrow() throws {
        #expect(try Duration.milliseconds(3).checkedNanoseconds() == 3_000_000)
        #expect(try Duration.nanoseconds(-5).checkedNanoseconds() == -5)
        #expect(throws: SchedulerError.self) { try Duration.seconds(Int64.max).checkedNanoseconds() }
        // Beyond Int64.max seconds, where `Duration.components` would trap.
        #expect(throws: SchedulerError.self) { try (Duration.seconds(Int64.max) * 4).checkedNanoseconds() }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func secondsRefuseNonFiniteValues(_ seconds: Double) {
        let error = #expect(throws: SchedulerError.self) { try Duration.checkedSeconds(seconds) }
        guard case .notFinite = error else {
            Issue.record("expected notFinite, got \(String(describing: error))")
            return
        }
    }

    @Test func secondsRefuseOverflow() throws {
        #expect(throws: SchedulerError.self) { try Duration.checkedSeconds(1e12) }
        #expect(try Duration.checkedSeconds(1.5) == .milliseconds(1500))
    }

    @Test func timesClampAtTheOriginAndRefuseOverflow() throws {
        let time = try SchedulerTime(nanoseconds: 10)
        #expect(try time.advanced(by: .nanoseconds(-20)) == .zero)
        #expect(try time.advanced(by: .nanoseconds(5)).nanoseconds == 15)
        #expect(time.duration(to: .zero) == .nanoseconds(-10))
        #expect(throws: SchedulerError.self) { try SchedulerTime.distantFuture.advanced(by: .nanoseconds(1)) }
        #expect(throws: SchedulerError.self) { try SchedulerTime(nanoseconds: .max) }
    }

    @Test func repeatSpecValidates() throws {
        #expect(throws: SchedulerError.invalidInterval(.zero)) { try RepeatSpec(interval: .zero, leeway: .zero) }
        #expect(throws: SchedulerError.invalidInterval(.seconds(-1))) {
            try RepeatSpec(interval: .seconds(-1), leeway: .zero)
        }
        #expect(throws: SchedulerError.invalidLeeway(.nanoseconds(-1))) {
            try RepeatSpec(interval: .seconds(1), leeway: .nanoseconds(-1))
        }
        #expect(throws: SchedulerError.self) { try RepeatSpec(interval: .seconds(Int64.max), leeway: .zero) }
        #expect(throws: SchedulerError.self) { try RepeatSpec(interval: .seconds(1), leeway: .seconds(Int64.max)) }
        let spec = try RepeatSpec(interval: .milliseconds(2), leeway: .microseconds(5))
        #expect(spec.intervalNanoseconds == 2_000_000)
        #expect(spec.leewayNanoseconds == 5_000)
    }
}
