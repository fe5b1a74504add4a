import SchedulerConformance
import Testing

/// The one policy that decides a run's exit status, and the explanations that excuse.
@Suite struct GateTests {
    let explanations: Explanations = [
        .rule(.ord1, of: "mine"): "specific",
        .rule(.tim2): "any subject",
        .subject("mine"): "any rule of mine",
    ]

    @Test func theMostSpecificExplanationWins() {
        #expect(explanations.explanation(subject: "mine", check: .rule(.ord1)) == "specific")
        #expect(explanations.explanation(subject: "mine", check: .rule(.tim2)) == "any subject")
        #expect(explanations.explanation(subject: "mine", check: .rule(.can1)) == "any rule of mine")
        #expect(explanations.explanation(subject: "theirs", check: .rule(.can1)) == nil)
    }

    @Test func requiredFailuresOfEveryNonMutantSubjectGateByDefault() {
        let gate = Gate()
        #expect(gate.gates(.failed, subject: "mine", origin: .thirdParty, check: .rule(.ord1), level: .required))
        #expect(gate.gates(.timeout, subject: "queue", origin: .reference, check: .rule(.ord1), level: .required))
        #expect(!gate.gates(.failed, subject: "mutant-lifo", origin: .mutant, check: .rule(.ord1), level: .required))
        #expect(!gate.gates(.failed, subject: "mine", origin: .thirdParty, check: .rule(.can3), level: .stochastic))
        #expect(!gate.gates(.passed, subject: "mine", origin: .thirdParty, check: .rule(.ord1), level: .required))
        #expect(!gate.gates(.inconclusive, subject: "mine", origin: .thirdParty, check: .rule(.ord1), level: .required))
        #expect(
            gate.gates(.error, subject: "mine", origin: .thirdParty, check: .scenario(.fanIn), level: nil),
            "a stress scenario has no level and counts")
    }

    @Test func explainedFailuresAndThirdPartiesOfTheMatrixDoNotGate() {
        let excusing = Gate(excused: explanations)
        #expect(!excusing.gates(.failed, subject: "mine", origin: .thirdParty, check: .rule(.ord2), level: .required))
        #expect(excusing.gates(.failed, subject: "theirs", origin: .thirdParty, check: .rule(.ord2), level: .required))
        #expect(
            !Gate.referenceOnly.gates(
                .failed, subject: "theirs", origin: .thirdParty, check: .rule(.ord2), level: .required))
        #expect(
            Gate.referenceOnly.gates(
                .failed, subject: "queue", origin: .reference, check: .rule(.ord2), level: .required))
    }
}
