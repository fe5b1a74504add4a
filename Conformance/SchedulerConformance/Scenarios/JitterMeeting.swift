import Dispatch
import SchedulerProbes
import Synchronization

extension Jitter {
    /// Two parties that wait for each other, each at most ``Meeting/patience``, so one that
    /// never comes (an action disposed in time) costs a moment, not a hang.
    /// After meeting, one party waits ``lag`` more: the call when it is positive, the point
    /// inside the subject when it is negative, so that across runs each sweeps the first
    /// microseconds of what the other does next.
    final class Meeting: Sendable {
        static let patience = Duration.microseconds(300)
        /// How long an action waits for its call: longer, since an action that runs a little
        /// longer is ordinary, and the calls come after the threads' barrier and their spins.
        static let actionPatience = Duration.milliseconds(1)
        /// How close the two departures must be for the meeting to count as evidence: both
        /// parties were on a core at once, so what either does next runs against the other.
        static let closeness: UInt64 = 2_000
        /// A race whose outcome each run shows, so the exploration can learn its lag
        /// (``LearnedLags``).
        enum Race: Sendable, Equatable {
            /// The call moves the time past the point's deadline (``MeetingKind/passing``).
            case passing
            /// The call disposes action n; the point is the return of n − 1, after which a
            /// serial subject decides whether n starts.
            case start(of: Int)
            /// The call schedules action n for the present; the point is the return of an
            /// action an advance runs, after which the advance looks for more due work.
            case arrival(of: Int)
            /// The call cancels sleeper n, asleep before the other call, a run, began: the cancel
            /// lands before the run takes n (n's sleep throws), or after (it returns).
            case taking(of: Int)
        }

        let parties: Set<Party>
        let lag: Duration
        /// For a meeting of two calls aimed at a race: the call that waits a positive lag (the
        /// other waits a negative one). Otherwise both calls wait a positive lag.
        let lagging: Party?
        /// The race the meeting aims at, if its outcome shows.
        let race: Race?
        /// The call moves the time past the point's deadline (``MeetingKind/passing``).
        var passes: Bool { race == .passing }
        private let arrived = Atomic<Int>(0)
        private let firstDeparture = Atomic<UInt64>(0)
        private let secondDeparture = Atomic<UInt64>(0)
        /// For a passing meeting: the tickets at which the point was first resumed by another
        /// thread and the call returned (0: not yet), and the point's own thread.
        private let pointResumed = Atomic<UInt64>(0)
        private let callReturned = Atomic<UInt64>(0)
        private let pointThread = Atomic<UInt>(0)
        /// For a ``Race/start(of:)`` meeting: the action its call disposes ran.
        private let disposedRan = Atomic<Bool>(false)
        /// For an ``Race/arrival(of:)`` meeting: the calls that advance, the tickets at which
        /// the latest of them began, the point arrived, the advance that ran the point returned
        /// and the action the call makes ran (0: not yet).
        private let advancers: Set<Party>
        private let advanceBegan = Atomic<UInt64>(0)
        private let pointArrived = Atomic<UInt64>(0)
        private let advanceReturned = Atomic<UInt64>(0)
        private let madeRan = Atomic<UInt64>(0)
        /// For a ``Race/taking(of:)`` meeting: how the sleeper's sleep ended (0: not yet,
        /// 1: it returned, 2: it threw).
        private let sleepEnded = Atomic<Int>(0)

        init(
            _ parties: Set<Party>, lag: Duration, race: Race? = nil, advancers: Set<Party> = [], lagging: Party? = nil
        ) {
            self.parties = parties
            self.lag = lag
            self.race = race
            self.advancers = advancers
            self.lagging = lagging
        }

        private var arrival: Bool { if case .arrival = race { true } else { false } }

        func arrive(_ party: Party) {
            guard parties.contains(party) else { return }
            if passes, case .actionReturn = party { pointThread.store(ThreadProbe.id, ordering: .releasing) }
            if arrival, case .actionReturn = party {
                _ = pointArrived.compareExchange(
                    expected: 0, desired: HistoryClock.tick(), ordering: .acquiringAndReleasing)
            }
            let order = arrived.add(1, ordering: .acquiringAndReleasing).newValue
            let patience = if case .actionReturn = party { Self.actionPatience } else { Self.patience }
            if spinWait(upTo: patience, until: { arrived.load(ordering: .acquiring) >= 2 }) {
                let now = DispatchTime.now().uptimeNanoseconds
                if order == 1 {
                    firstDeparture.store(now, ordering: .releasing)
                } else {
                    secondDeparture.store(now, ordering: .releasing)
                }
            }
            switch party {
            case .call where lagging != nil && lagging != party: if lag < .zero { spin(.zero - lag) }
            case .call where lag > .zero, .resumption where lag > .zero: spin(lag)
            case .actionReturn where lag < .zero: spin(.zero - lag)
            default: break
            }
        }

        /// Notes, for a meeting that passes its point's time, that point `point` was resumed.
        func resumed(_ point: Int) {
            guard passes, parties.contains(.actionReturn(point)) else { return }
            // Only a resumption by another thread: the point's task also hops, handing itself
            // back to its executor from its own thread.
            let own = pointThread.load(ordering: .acquiring)
            guard own != 0, own != ThreadProbe.id else { return }
            _ = pointResumed.compareExchange(
                expected: 0, desired: HistoryClock.tick(), ordering: .acquiringAndReleasing)
        }

        /// Notes, for an arrival meeting, that call `party` is about to begin.
        func calling(_ party: Party) {
            guard arrival, advancers.contains(party) else { return }
            advanceBegan.store(HistoryClock.tick(), ordering: .releasing)
        }

        /// Notes, for a meeting that passes its point's time, that call `party` returned; for
        /// an arrival meeting, that an advance returned, if it began before the point arrived
        /// (the driver's calls follow one another, so that advance ran the point).
        func returned(_ party: Party) {
            if arrival, advancers.contains(party) {
                let point = pointArrived.load(ordering: .acquiring)
                guard point != 0, advanceBegan.load(ordering: .acquiring) < point else { return }
                _ = advanceReturned.compareExchange(
                    expected: 0, desired: HistoryClock.tick(), ordering: .acquiringAndReleasing)
                return
            }
            guard passes, parties.contains(party) else { return }
            callReturned.store(HistoryClock.tick(), ordering: .releasing)
        }

        /// Notes, for a ``Race/taking(of:)`` meeting, how sleeper `point`'s sleep ended.
        func ended(_ point: Int, returned: Bool) {
            guard race == .taking(of: point) else { return }
            _ = sleepEnded.compareExchange(expected: 0, desired: returned ? 1 : 2, ordering: .acquiringAndReleasing)
        }

        /// Notes that the suite's action `action` ran (it is about to return).
        func ran(_ action: Int) {
            if race == .start(of: action) { disposedRan.store(true, ordering: .releasing) }
            if race == .arrival(of: action) {
                _ = madeRan.compareExchange(expected: 0, desired: HistoryClock.tick(), ordering: .acquiringAndReleasing)
            }
        }

        /// For a meeting that aims at a race and happened, whether the call came after the
        /// point's side had decided: for a passing meeting, the sleeper went to sleep before
        /// the advance decided (the advance resumed it, from its own thread, before returning)
        /// rather than after (it found its time passed, or was lost); for a dispose, its
        /// action ran; for a cancel, the sleep it cancels returned. Which side of the race the
        /// lag put the call on; nil for other meetings.
        var callLate: Bool? {
            guard let race, happened else { return nil }
            switch race {
            case .passing:
                let resumed = pointResumed.load(ordering: .acquiring)
                return resumed != 0 && resumed < callReturned.load(ordering: .acquiring)
            case .start:
                return disposedRan.load(ordering: .acquiring)
            case .arrival:
                // Only an advance that ran the point tells: a step takes one action and no more.
                let returned = advanceReturned.load(ordering: .acquiring)
                guard returned != 0 else { return nil }
                let ran = madeRan.load(ordering: .acquiring)
                return ran == 0 || ran > returned
            case .taking:
                let ended = sleepEnded.load(ordering: .acquiring)
                return ended == 0 ? nil : ended == 1
            }
        }

        /// Whether both parties came and left within ``closeness`` of each other: a meeting
        /// that one party waited out, or that preemption stretched, proves nothing.
        var happened: Bool {
            let first = firstDeparture.load(ordering: .acquiring)
            let second = secondDeparture.load(ordering: .acquiring)
            guard first > 0, second > 0 else { return false }
            return max(first, second) - min(first, second) <= Self.closeness
        }

        /// Which kind of meeting this is.
        var kind: MeetingKind {
            if passes { return .passing }
            return parties.contains { if case .actionReturn = $0 { true } else { false } } ? .callAndReturn : .calls
        }
    }
}
