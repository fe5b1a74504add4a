import SchedulerProbes

extension Jitter {
    /// The kinds of meeting: they test different hand-offs and are counted apart.
    public enum MeetingKind: Sendable {
        /// Two calls on two threads.
        case calls
        /// A call and the return of one of the suite's actions, inside the subject.
        case callAndReturn
        /// A call that moves the time and a point of the suite's code that goes to wait for a
        /// time the call passes (a sleeper due by an advance's target), a call and a return
        /// counted apart: the one overlap in which an advance can lose a sleeper.
        case passing

        /// The share of ``Exploration/meetings`` an exploration that needs this kind needs of
        /// it: meetings that pass a deadline are fewer than the others, and each sweeps the
        /// whole span in which an advance decides, so fewer of them are enough.
        var share: Double { self == .passing ? 0.4 : 1 }

        /// The meetings of this kind, in words.
        var meetingsName: String {
            switch self {
            case .calls: "meetings of two calls"
            case .callAndReturn: "meetings of a call and the suite's code inside the subject"
            case .passing: "meetings of a call and a point whose time it passed"
            }
        }
    }

    /// Where the call of a meeting that aims at one race goes, learned as the meetings happen.
    /// Such a race is won or lost within a microsecond, at a moment no fixed lag finds on
    /// every machine: how long the point takes to reach the subject and the call to decide
    /// depends on the build, the load and the subject. Each meeting shows which side of the
    /// race the call landed on (`Meeting.callLate`), and the centre steps towards the other:
    /// it settles where either side is as likely, which is where a subject that looks in one
    /// critical section and acts in another goes wrong.
    public struct LearnedLag: Sendable, Equatable {
        /// The lag, in ns, around which the next meetings' lags are drawn.
        public private(set) var centre: Int64
        /// How far one meeting moves the centre: about twenty meetings cross the first guess's
        /// error on a slow machine, well within the 120 an exploration needs of the fewest kind.
        static let step: Int64 = 200
        /// No farther than a point may go first (its wait after meeting, spun) or the call wait.
        static let bounds: ClosedRange<Int64> = -4_000...20_000

        /// Moves the centre away from the side a meeting's call landed on.
        mutating func learn(callLate: Bool) {
            centre = min(
                max(centre + (callLate ? -Self.step : Self.step), Self.bounds.lowerBound), Self.bounds.upperBound)
        }

        /// The lag of one meeting, in ns, from `sweep` (0 ..< 6,000): up to 1.5 µs either side
        /// of the centre, so the window just before the crossing is met as often as the one after.
        func lag(_ sweep: Int64) -> Int64 { centre + (sweep - 3_000) / 2 }
    }

    /// The lags one exploration learns, one for each race a meeting can aim at.
    public struct LearnedLags: Sendable, Equatable {
        /// An advance against a sleeper due on its way going to sleep (``MeetingKind/passing``):
        /// first guessed 2 µs after the sleeper, which takes a microsecond or two to reach
        /// the clock while an advance with nothing else due decides at once.
        public private(set) var passing = LearnedLag(centre: 2_000)
        /// A dispose of action n against a serial subject's decision to start it, once n − 1
        /// returned: first guessed 1 µs after that return.
        public private(set) var start = LearnedLag(centre: 1_000)
        /// A schedule for the present against an advance's last look for due work, once the
        /// last action it ran returned: first guessed half a microsecond after that return.
        public private(set) var arrival = LearnedLag(centre: 500)
        /// A cancel of a sleeper against a run that takes it: first guessed 1 µs after the
        /// run, which goes through its gate and lock before it takes anything.
        public private(set) var taking = LearnedLag(centre: 1_000)

        /// Every lag at its first guess.
        public init() {}

        /// The lag learned for `race`.
        subscript(race: Meeting.Race) -> LearnedLag { self[keyPath: Self.lag(of: race)] }

        /// Learns from `meeting`, if it aimed at a race and happened.
        mutating func learn(from meeting: Meeting) {
            guard let race = meeting.race, let late = meeting.callLate else { return }
            self[keyPath: Self.lag(of: race)].learn(callLate: late)
        }

        private static func lag(of race: Meeting.Race) -> WritableKeyPath<LearnedLags, LearnedLag> {
            switch race {
            case .passing: \.passing
            case .start: \.start
            case .arrival: \.arrival
            case .taking: \.taking
            }
        }
    }

    /// What a call acts on, for choosing meetings: the risky overlaps are those of calls that
    /// change what is already there.
    public enum Aim: Sendable, Hashable {
        /// Only reads (`now`).
        case nothing
        /// Makes point n of the suite's code inside the subject (schedules action n, starts
        /// sleeper n): a meeting may wait there. `due`, for a point that waits for a time (a
        /// sleeper's deadline, in the scenario's units), lets a call that passes it meet it.
        case makes(Int, due: Int? = nil)
        /// The subject's shared state (an advance of virtual time that runs the suite's code
        /// on its own thread).
        case shared
        /// Shared state that the suite's code inside the subject reaches from other threads
        /// (a manual clock's advance, whose sleepers run elsewhere; a declared extra call):
        /// met with any point the scenario makes. `passing` is the span of time the call moves
        /// through, if it moves it (an advance from 0 to its target): it meets a point due in
        /// that span whenever there is one (``MeetingKind/passing``). `resumesAll`, for a call
        /// that resumes every sleeper however far their times (a manual clock's `run()`): a
        /// cancel of a sleeper asleep before it meets it where the outcome shows.
        case crossing(passing: ClosedRange<Int>? = nil, resumesAll: Bool = false)
        /// One action (a dispose of action n): met with the return of action n − 1, when a
        /// serial subject decides whether n starts.
        case action(Int)
        /// One point of the suite's own code inside the subject (sleeper n going to sleep),
        /// met with that point itself.
        case point(Int)
        /// Makes point n (enqueues job n) and meets the return of n − 1, the moment a serial
        /// executor decides whether it has more to run or goes idle.
        case follows(Int)
        /// Makes point n for the present on a virtual-time subject: met with the return of an
        /// action an advance runs, as the advance looks for more due work before it moves the
        /// time to its target (work that comes in between is due, and must run in that advance).
        case arrives(Int)
        /// Advances virtual time (by or to a target): runs what is due on its own thread, then
        /// moves the time.
        case advances

        /// The lag after meeting a point of the suite's code, in ns, from `sweep` (0 ..< 6,000).
        /// A serial subject decides about action n only after n − 1 returned, so a dispose of
        /// n comes after the return it meets (0 to 4 µs; at n − 1's own return it waits as
        /// ``LearnedLags/start`` learned instead). An enqueue goes a longer way than the drain
        /// that decides whether to go idle (a task is made, then hops), so it starts up to
        /// 6 µs before the return it meets and at most 2 µs after. A call that reaches the
        /// subject's shared state (an advance) goes up to 4 µs before or after the point: the
        /// point may have to land inside the call's work, or the call inside the point's.
        /// Elsewhere either side goes first, the call by up to 4 µs.
        func lag(_ sweep: Int64) -> Int64 {
            switch self {
            case .action: sweep * 2 / 3
            case .follows: 2_000 - sweep * 4 / 3
            case .crossing: sweep * 4 / 3 - 4_000
            case .nothing, .makes, .shared, .point, .arrives, .advances: sweep - 2_000
            }
        }

        /// The point of the suite's code inside the subject this call makes, if any.
        var makes: Int? {
            switch self {
            case .makes(let n, _), .follows(let n), .arrives(let n): n
            case .nothing, .shared, .crossing, .action, .point, .advances: nil
            }
        }

        /// The point of the suite's code inside the subject a meeting with this call waits for.
        var meets: Int? {
            switch self {
            case .action(let n), .follows(let n): n > 1 ? n - 1 : nil
            case .point(let n): n
            case .nothing, .makes, .shared, .crossing, .arrives, .advances: nil
            }
        }
    }
}
