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
        #expect(explanations.explanation(subject: "mine", rule: "ORD-1") == "specific")
        #expect(explanations.explanation(subject: "mine", rule: "TIM-2") == "any subject")
        #expect(explanations.explanation(subject: "mine", rule: "CAN-1") == "any rule of mine")
        #expect(explanations.explanation(subject: "theirs", rule: "CAN-1") == nil)
    }

    @Test func requiredFailuresOfEveryNonMutantSubjectGateByDefault() {
        let gate = Gate()
        #expect(gate.gates(.failed, subject: "mine", origin: .thirdParty, rule: "ORD-1", level: .required))
        #expect(gate.gates(.timeout, subject: "queue", origin: .reference, rule: "ORD-1", level: .required))
        #expect(!gate.gates(.failed, subject: "mutant-lifo", origin: .mutant, rule: "ORD-1", level: .required))
        #expect(!gate.gates(.failed, subject: "mine", origin: .thirdParty, rule: "CAN-3", level: .stochastic))
        #expect(!gate.gates(.passed, subject: "mine", origin: .thirdParty, rule: "ORD-1", level: .required))
        #expect(!gate.gates(.inconclusive, subject: "mine", origin: .thirdParty, rule: "ORD-1", level: .required))
        #expect(
            gate.gates(.error, subject: "mine", origin: .thirdParty, rule: "fan-in", level: nil),
            "a stress scenario has no level and counts")
    }

    @Test func explainedFailuresAndThirdPartiesOfTheMatrixDoNotGate() {
        let excusing = Gate(excused: explanations)
        #expect(!excusing.gates(.failed, subject: "mine", origin: .thirdParty, rule: "ORD-2", level: .required))
        #expect(excusing.gates(.failed, subject: "theirs", origin: .thirdParty, rule: "ORD-2", level: .required))
        #expect(
            !Gate.referenceOnly.gates(.failed, subject: "theirs", origin: .thirdParty, rule: "ORD-2", level: .required))
        #expect(
            Gate.referenceOnly.gates(.failed, subject: "queue", origin: .reference, rule: "ORD-2", level: .required))
    }
}
