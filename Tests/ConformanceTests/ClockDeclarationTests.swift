import Dispatch
import Foundation
import SchedulerConformance
import SchedulerMutants
import SchedulerProbes
import Schedulers
import TestSupport
import Testing
import XCTest

/// LIN-2 drives a virtual-time scheduler from two threads at once unless it declares
/// `.drivenFrom(.oneThread)`, and a failure two drivers showed names that declaration.
@Suite struct DrivenFromDeclarationTests {
    /// Correct but for a gate: drives from two threads run their actions side by side.
    private static let overlapping = Mutants.all.first { $0.subject.name == "mutant-virtual-drives-overlap" }!.subject

    @Test func aSchedulerDrivenFromOneThreadPassesWhenItSaysSo() async {
        let result = await judge(Self.overlapping.declaring(.drivenFrom(.oneThread)), .lin2)[.lin2]!
        #expect(passesOrLacksEvidence(result), "\(result.message ?? "")")
    }

    @Test func aFailureTwoDriversShowedNamesTheDeclaration() async {
        // How often LIN-2 catches the mutant is the kill tests' business; this is about the
        // message, so a short exploration that missed it runs again, for up to a minute.
        var result = await judge(Self.overlapping, .lin2)[.lin2]!
        let giveUp = ContinuousClock.now + .seconds(60)
        while result.status != .failed, ContinuousClock.now < giveUp {
            result = await judge(Self.overlapping, .lin2)[.lin2]!
        }
        #expect(result.status == .failed)
        #expect(result.message?.contains("declares `.drivenFrom(.oneThread)`") == true, "\(result.message ?? "")")
    }
}

/// VT-6 and LIN-2 hold a virtual-time scheduler to what its advance declares it does with
/// work due exactly at the target; a failure an exclusive advance explains names the
/// declaration.
@Suite struct AdvanceTargetDeclarationTests {
    /// A correct scheduler whose `advance(to:)` leaves the target's work for the next drive.
    private static let exclusive = Mutants.all.first { $0.subject.name == "mutant-virtual-advance-exclusive" }!.subject
    private static let inclusive = ConformanceSubject(name: "test-scheduler") { TestScheduler() }

    @Test func anExclusiveAdvancePassesWhenItSaysSo() async {
        let undeclared = await judge(Self.exclusive, .vt6)[.vt6]!
        #expect(undeclared.status == .failed)
        #expect(
            undeclared.message?.contains("declares `.declaring(.advanceTarget(.exclusive))`") == true,
            "\(undeclared.message ?? "")")
        for (rule, result) in await judge(
            Self.exclusive.declaring(.advanceTarget(.exclusive)), .vt6, .vt8, .vt11, .lin2)
        {
            #expect(passesOrLacksEvidence(result), "\(rule): \(result.message ?? "")")
        }
    }

    @Test func anInclusiveAdvanceFailsTheExclusiveDeclaration() async {
        let declared = Self.inclusive.declaring(.advanceTarget(.exclusive))
        let results = await judge(declared, .vt6, .lin2)
        #expect(results[.vt6]?.status == .failed)
        #expect(
            results[.vt6]?.message?.contains("though the subject declares `.declaring(.advanceTarget(.exclusive))`")
                == true, "\(results[.vt6]?.message ?? "")")
        // A run whose exploration lacked evidence (a sanitizer run beside other work gets few
        // meetings) did not show the violation it looks for: it runs again, for up to a
        // minute.
        var linearized = results[.lin2]
        let giveUp = ContinuousClock.now + .seconds(60)
        while linearized?.status == .inconclusive, ContinuousClock.now < giveUp {
            linearized = await judge(declared, .lin2)[.lin2]
        }
        #expect(linearized?.status == .failed, "\(linearized?.status as Any) \(linearized?.message ?? "")")
        #expect(await judge(Self.inclusive, .vt6, .vt8)[.vt6]?.status == .passed)
    }
}
