extension ScenarioExplorer {
    /// What one exploration did.
    public struct Summary: Sendable, Equatable {
        /// Scenarios generated, runs made, and runs in which some calls overlapped.
        public var scenarios = 0, runs = 0, conclusive = 0
        /// Runs whose history the checker could not decide within its limits: they count as
        /// runs, never as evidence.
        public var undecided = 0
        /// Runs whose meeting happened, of two calls and of a call and a point of the suite's
        /// code inside the subject (those that passed the point's time included), and of a
        /// call and a point whose time it passed.
        public var callMeetings = 0, returnMeetings = 0, passingMeetings = 0
        /// Runs whose meeting aimed a cancel at a run's take of its sleeper and showed which
        /// side of the take it landed on (a meeting aimed at the taking race), and scenarios
        /// that offered such a meeting.
        public var takingMeetings = 0, takingScenarios = 0
        /// With a pairing: the meetings of two calls, by the pair of kinds they joined, and
        /// every pair some scenario put on two threads.
        public var pairMeetings: [CallPair: Int] = [:], offeredPairs: Set<CallPair> = []

        /// The meetings of `kind` that happened.
        func meetings(of kind: Jitter.MeetingKind) -> Int {
            switch kind {
            case .calls: callMeetings
            case .callAndReturn: returnMeetings
            case .passing: passingMeetings
            }
        }

        /// The first of `kinds` of which fewer than `exploration` needs happened.
        func shortKind(of kinds: [Jitter.MeetingKind], in exploration: Exploration) -> Jitter.MeetingKind? {
            kinds.first { meetings(of: $0) < Self.needed(of: $0, in: exploration) }
        }

        /// How many meetings of `kind` `exploration` needs: its share of the meetings.
        static func needed(of kind: Jitter.MeetingKind, in exploration: Exploration) -> Int {
            let needed =
                kind == .callAndReturn ? exploration.returnMeetings ?? exploration.meetings : exploration.meetings
            return max(1, Int((Double(needed) * kind.share).rounded(.up)))
        }

        /// How many meetings of a cancel and a run's take `exploration` needs once its scenarios
        /// offer them: a fifth of ``Exploration/meetings``. The race is won within a microsecond
        /// or two after the take, and about one such meeting in eight lands there once the lag
        /// has settled, which takes a few dozen: sixty leave a subject that loses it no way out.
        static func takingsNeeded(in exploration: Exploration) -> Int { max(1, exploration.meetings / 5) }

        /// Whether the scenarios offered meetings of a cancel and a run's take, and fewer than
        /// `exploration` needs of them happened.
        func takingsShort(in exploration: Exploration) -> Bool {
            takingScenarios > 0 && takingMeetings < Self.takingsNeeded(in: exploration)
        }

        /// The meetings that happened, in words.
        var metDescription: String {
            let passing = passingMeetings == 0 ? "" : " (\(passingMeetings) passing its time)"
            return
                """
                \(callMeetings) meetings of two calls, \(returnMeetings) of a call and the suite's code inside the \
                subject\(passing)\(takingScenarios == 0 ? "" : ", \(takingMeetings) of a cancel and a run's take")
                """
        }

        /// The offered pair that met least often, if it met fewer than `needed` times.
        func shortPair(needing needed: Int) -> (pair: CallPair, met: Int)? {
            offeredPairs.map { ($0, pairMeetings[$0] ?? 0) }.filter { $0.1 < needed }.min {
                ($0.1, $0.0) < ($1.1, $1.0)
            }
        }
    }

    /// Two kinds of call, in either order ("remove and remove"): what a meeting joined.
    public struct CallPair: Hashable, Sendable, Comparable, CustomStringConvertible {
        public let first: String, second: String
        /// The pair of `one` and `other`, whichever came first.
        public init(_ one: String, _ other: String) { (first, second) = one <= other ? (one, other) : (other, one) }
        public static func < (lhs: CallPair, rhs: CallPair) -> Bool {
            (lhs.first, lhs.second) < (rhs.first, rhs.second)
        }
        public var description: String { "\(first) and \(second)" }
    }
}
