import Foundation
import SchedulerProbes
import Testing

@testable import SchedulerConformance

/// The gate that lets rules run side by side, but a racing rule alone.
@Suite struct CoreGateTests {
    let gate = CoreGate()

    /// Runs `body` through the gate on a thread of its own.
    private func enter(exclusive: Bool, _ body: @escaping @Sendable () -> Void) {
        let gate = self.gate
        Thread { gate.run(exclusive: exclusive, body) }.start()
    }

    @Test func rulesThatNeedNoIdleCoresRunSideBySide() {
        let first = Signal()
        let second = Signal()
        let release = Signal()
        // Neither leaves before both are in: a gate that ran them one at a time would keep
        // the second out until the first gave up.
        enter(exclusive: false) {
            first.fire()
            _ = release.wait(.seconds(10))
        }
        enter(exclusive: false) {
            second.fire()
            _ = release.wait(.seconds(10))
        }
        #expect(first.wait(.seconds(10)) && second.wait(.seconds(10)), "the two rules did not run at once")
        release.fire(times: 2)
    }

    @Test func aRacingRuleWaitsForTheRunningOnesAndKeepsTheNextOnesOut() {
        let sharedIn = Signal()
        let releaseShared = Signal()
        enter(exclusive: false) {
            sharedIn.fire()
            _ = releaseShared.wait(.seconds(10))
        }
        #expect(sharedIn.wait(.seconds(10)))
        let racingIn = Signal()
        let releaseRacing = Signal()
        enter(exclusive: true) {
            racingIn.fire()
            _ = releaseRacing.wait(.seconds(10))
        }
        // Must not happen: the window only bounds how long a wrong gate has to show itself.
        #expect(!racingIn.wait(.milliseconds(200)), "the racing rule ran beside a running rule")
        releaseShared.fire()
        #expect(racingIn.wait(.seconds(10)))
        let laterIn = Signal()
        enter(exclusive: false) { laterIn.fire() }
        #expect(!laterIn.wait(.milliseconds(200)), "a rule ran beside the racing one")
        releaseRacing.fire()
        #expect(laterIn.wait(.seconds(10)))
    }
}
