import Dispatch
import SchedulerProbes
import Synchronization

/// The seeded spreading of one run: how long each thread spins before each of its calls,
/// how long each of the suite's actions spins while the subject runs it, and one meeting
/// that forces two chosen points to coincide. Most spins are nil or short, so calls released
/// together overlap; a few are long, so the same calls also run apart. The meeting is what
/// makes the risky overlaps happen rather than hoping for them: two calls on two threads, or
/// a call and the return of one of the suite's actions (the moment a serial subject decides
/// what runs next), each wait for the other before going on.
public struct Jitter: Sendable {
    /// The seed every spin of the run derives from.
    public let seed: UInt64
    /// The two points that meet in this run, if any.
    let meeting: Meeting?
    /// Whether the run's scenario has a cancel that can meet a run's take of its sleeper
    /// (``takings(calls:aim:dues:)``), whatever this run met.
    let offersTaking: Bool
    /// The actions that run long in this run, so that what the call of a meeting with a point
    /// inside the subject starts in the window it aimed at (a second drain, a job run beside)
    /// is still running when the next work comes: the point that call makes, or, for a dispose
    /// aimed at the moment a serial subject decides whether action n starts, the two actions
    /// after n (a second worker the dispose let in runs one beside the first worker's next).
    private let longActions: Set<Int>

    /// A point of a run: a thread about to make one of its calls (threads numbered from 1,
    /// calls from 0), or one of the suite's actions about to return.
    enum Party: Hashable, Sendable {
        case call(thread: Int, index: Int)
        case actionReturn(Int)
        /// Sleeper n's task handed back to the suite's executor by whoever resumed it (an
        /// advance), on the resumer's thread, in the middle of its work.
        case resumption(Int)

        /// The thread of a call (from 1); 0 for the other points.
        var thread: Int { if case .call(let thread, _) = self { thread } else { 0 } }
    }

    /// A run's jitter. `aims` has, for each parallel thread, what each of its calls acts on.
    /// A meeting of two calls takes acting calls first (both, in half the runs that have two on
    /// different threads); a meeting of a call and a point of the suite's code inside the
    /// subject takes a call aimed at one (`Aim/meets`) first, and otherwise one of `points`,
    /// the points of the suite's code the scenario makes.
    /// `resumable` has the points whose resumption the suite sees (`Party/resumption(_:)`):
    /// in a sixth of the runs one of them meets another point as it is resumed, so that a
    /// sleeper goes to sleep in the middle of an advance's work.
    /// `kinds`, when given, has the kind of each call as `aims` has its aim (nil for a call
    /// of no kind): in half the runs that meet two calls, the pair of kinds is drawn first.
    /// `dues` has the time each point waits for, if it waits (``Aim/makes(_:due:)``): a run
    /// that meets a call and a point meets a call aimed at a span of time
    /// (``Aim/crossing(passing:resumesAll:)``) with a point due in that span whenever the scenario has
    /// one. With `onlyCalls` (an exploration whose
    /// evidence is meetings of two calls alone), two runs in three meet two calls.
    /// Without `resumable` or `onlyCalls`, every run meets something. `short`, when given,
    /// has the kinds of meeting the exploration still needs: a draw for a kind it has enough
    /// of meets the other kind instead, so the exploration ends on its evidence sooner. A
    /// meeting aimed at a race whose outcome shows (an advance passing a sleeper's time, a
    /// dispose as a serial subject decides whether to start its action) lets its call wait
    /// around the lag the exploration `learned` for that race.
    public init(
        seed: UInt64, aims: [[Aim]], points: [Int], resumable: [Int] = [], kinds: [[String?]]? = nil,
        dues: [Int: Int] = [:], onlyCalls: Bool = false, short: Set<MeetingKind>? = nil,
        learned: LearnedLags = LearnedLags()
    ) {
        self.seed = seed
        var random = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        let calls = aims.enumerated().flatMap { thread, aims in
            aims.indices.map { Party.call(thread: thread + 1, index: $0) }
        }
        func aim(_ party: Party) -> Aim {
            if case .call(let thread, let index) = party { aims[thread - 1][index] } else { .nothing }
        }
        /// One of `parties`, an acting one if there is any and `preferActing`.
        func pick(_ parties: [Party], preferActing: Bool = true) -> Party {
            let acting = parties.filter {
                switch aim($0) {
                case .shared, .crossing, .action, .point, .follows, .advances: true
                case .nothing, .makes, .arrives: false
                }
            }
            let pool = preferActing && !acting.isEmpty ? acting : parties
            return pool[Int(random.next() % UInt64(pool.count))]
        }
        let sweep = Int64(random.next() % 6_000)
        // Meetings with an action's return happen less often (the action may be disposed, or
        // done before the call comes), so they are tried more often, unless only meetings of
        // two calls count: then two of those three draws meet two calls instead. When both
        // kinds count and nothing is resumed, the draw kept for resumptions meets a return
        // too: those meetings are what such an exploration waits for.
        var draw = random.next() % 6
        if draw == 5, resumable.isEmpty, !onlyCalls { draw = 4 }
        if onlyCalls, (2..<4).contains(draw) { draw -= 2 }
        let twoThreads = Set(calls.map(\.thread)).count > 1
        if let short, !short.isEmpty {
            if !short.contains(.calls), draw < 2, !points.isEmpty, !calls.isEmpty { draw += 2 }
            if short == [.calls], draw >= 2, twoThreads { draw %= 2 }
        }
        // A cancel of a sleeper that was asleep before the calls began meets a run that
        // resumes it, where the outcome shows, in two runs in three: at the lag learned for
        // the moment between the run taking the sleeper and resuming it, which is narrow.
        let takings = Self.takings(calls: calls, aim: aim, dues: dues)
        offersTaking = !takings.isEmpty
        switch draw {
        case 0..<4 where !takings.isEmpty:
            let (cancel, run, point) = takings[Int(random.next() % UInt64(takings.count))]
            meeting = Meeting(
                [cancel, run], lag: .nanoseconds(learned.taking.lag(sweep)), race: .taking(of: point), lagging: cancel)
            longActions = []
        case 0..<2 where twoThreads:
            // Half the time, with kinds, every pair of kinds the threads offer is as likely as
            // any other, so a rare pair (two removes) meets as often as a common one.
            let pairs = kinds != nil && random.next() % 2 == 0 ? Self.pairs(ofKinds: kinds!) : [:]
            if pairs.isEmpty {
                let first = pick(calls)
                let second = pick(calls.filter { $0.thread != first.thread }, preferActing: random.next() % 2 == 0)
                meeting = Meeting([first, second], lag: .zero)
            } else {
                let keys = pairs.keys.sorted()
                let candidates = pairs[keys[Int(random.next() % UInt64(keys.count))]]!
                let (first, second) = candidates[Int(random.next() % UInt64(candidates.count))]
                meeting = Meeting([first, second], lag: .zero)
            }
            longActions = []
        case 2..<5 where !points.isEmpty && !calls.isEmpty:
            let passing = calls.flatMap { call -> [(Party, Int)] in
                guard case .crossing(let span?, _) = aim(call) else { return [] }
                return points.filter { dues[$0].map(span.contains) ?? false }.map { (call, $0) }
            }
            if !passing.isEmpty {
                let (call, point) = passing[Int(random.next() % UInt64(passing.count))]
                meeting = Meeting(
                    [call, .actionReturn(point)], lag: .nanoseconds(learned.passing.lag(sweep)), race: .passing)
                longActions = []
                break
            }
            // Half the time a schedule for the present is aimed at an advance's last look.
            let advancers = Set(calls.filter { aim($0) == .advances })
            let arrivals = !advancers.isEmpty && random.next() % 2 == 0
            let aimed = calls.filter {
                if case .crossing = aim($0) { return true }
                if arrivals, case .arrives = aim($0) { return true }
                return aim($0).meets.map(points.contains) ?? false
            }
            let call = pick(aimed.isEmpty ? calls : aimed)
            let target = aim(call)
            let point =
                target.meets.flatMap { points.contains($0) ? $0 : nil }
                ?? points[Int(random.next() % UInt64(points.count))]
            // A dispose meeting the return before its action shows whether that action ran; a
            // schedule meeting an action's return shows whether the advance running it ran the
            // new action too.
            let race: Meeting.Race? =
                if case .action(let n) = target, target.meets == point {
                    .start(of: n)
                } else if case .arrives(let n) = target, !advancers.isEmpty, point != n {
                    .arrival(of: n)
                } else {
                    nil
                }
            let lag = race.map { learned[$0].lag(sweep) } ?? target.lag(sweep)
            meeting = Meeting([call, .actionReturn(point)], lag: .nanoseconds(lag), race: race, advancers: advancers)
            switch target {
            case .action(let n): longActions = [n + 1, n + 2]
            default: longActions = Set(target.makes.map { [$0] } ?? [])
            }
        case 5 where !resumable.isEmpty:
            let resumed = resumable[Int(random.next() % UInt64(resumable.count))]
            let others = points.filter { $0 != resumed }
            // The resumer goes on to its next step within a microsecond or two: a sleeper that
            // goes to sleep then lands in it.
            meeting =
                others.isEmpty
                ? nil
                : Meeting(
                    [.resumption(resumed), .actionReturn(others[Int(random.next() % UInt64(others.count))])],
                    lag: .nanoseconds(sweep - 3_000))
            longActions = []
        default:
            meeting = nil
            longActions = []
        }
    }

    /// The spins before each call of `thread`, one per call, with `count` calls.
    public func beforeCalls(of thread: Int, count: Int) -> [Duration] {
        var random = SplitMix64(seed: seed ^ (UInt64(thread) &* 0x9E37_79B9_7F4A_7C15))
        return (0..<count).map { _ in Self.spread(&random, longest: 150_000) }
    }

    /// The spin inside the action numbered `action`.
    public func inside(action: Int) -> Duration {
        var random = SplitMix64(seed: seed &+ UInt64(action) &* 0xD1B5_4A32_D192_ED03)
        if longActions.contains(action) { return .nanoseconds(20_000 + Int64(random.next() % 180_000)) }
        return Self.spread(&random, longest: 200_000)
    }

    /// The calls on two different threads whose kinds are both given (`kinds` has a kind, or
    /// nil, for each call of each thread), by the pair of kinds they make.
    static func pairs(ofKinds kinds: [[String?]]) -> [ScenarioExplorer.CallPair: [(Party, Party)]] {
        let calls = kinds.enumerated().flatMap { thread, kinds in
            kinds.enumerated().compactMap { index, kind in
                kind.map { (Party.call(thread: thread + 1, index: index), $0) }
            }
        }
        var pairs: [ScenarioExplorer.CallPair: [(Party, Party)]] = [:]
        for (offset, (first, one)) in calls.enumerated() {
            for (second, other) in calls[(offset + 1)...] where second.thread != first.thread {
                pairs[ScenarioExplorer.CallPair(one, other), default: []].append((first, second))
            }
        }
        return pairs
    }

    /// The cancels of a sleeper asleep before the calls began (one that waits for a time, as
    /// `dues` says, and no call makes) that meet a run on another thread, when the outcome
    /// of the race shows in the time: the run is the calls' one drive, and the sleeper the
    /// one due last. A run whose last sleeper is the cancelled one ends at its time only if
    /// the run took it; an advance ends at its target, and a run that resumes a later
    /// sleeper (or is followed by another drive) ends elsewhere, whoever took it.
    static func takings(calls: [Party], aim: (Party) -> Aim, dues: [Int: Int]) -> [(
        cancel: Party, run: Party, point: Int
    )] {
        let madeByCalls = Set(calls.compactMap { aim($0).makes })
        let latest = dues.values.max()
        // Due alone at the latest time: a sleeper due with it would move the time there too.
        let last = dues.values.filter { $0 == latest }.count == 1 ? latest : nil
        let drives = calls.filter { if case .crossing = aim($0) { true } else { false } }.count
        guard drives == 1, last != nil else { return [] }
        return calls.flatMap { cancel -> [(Party, Party, Int)] in
            guard case .point(let point) = aim(cancel), !madeByCalls.contains(point), dues[point] == last else {
                return []
            }
            return calls.compactMap { run in
                guard run.thread != cancel.thread, case .crossing(_, resumesAll: true) = aim(run) else { return nil }
                return (cancel, run, point)
            }
        }
    }

    /// The two calls of this run's meeting, if it is a meeting of two calls.
    var metCalls: [(thread: Int, index: Int)] {
        (meeting?.parties ?? []).compactMap {
            if case .call(let thread, let index) = $0 { (thread, index) } else { nil }
        }
    }

    /// Called by thread `thread` before its call `index`: waits there if that is a meeting point.
    func beforeCall(_ index: Int, of thread: Int) {
        meeting?.calling(.call(thread: thread, index: index))
        meeting?.arrive(.call(thread: thread, index: index))
    }

    /// Called by the suite's action `action` just before it returns.
    public func beforeReturn(of action: Int) {
        meeting?.ran(action)
        meeting?.arrive(.actionReturn(action))
    }

    /// Called by thread `thread` when its call `index` returned.
    func afterCall(_ index: Int, of thread: Int) { meeting?.returned(.call(thread: thread, index: index)) }

    /// Called on the resuming thread when the suite's point `point` (a sleeper) is resumed.
    public func whenResumed(_ point: Int) {
        meeting?.resumed(point)
        meeting?.arrive(.resumption(point))
    }

    /// Called by sleeper `point`'s task when its sleep ended: returned, or not.
    public func ended(_ point: Int, returned: Bool) { meeting?.ended(point, returned: returned) }

    private static func spread(_ random: inout SplitMix64, longest nanoseconds: UInt64) -> Duration {
        switch random.next() % 10 {
        case 0..<4: .zero
        case 4..<7: .nanoseconds(Int64(random.next() % 3_000))
        default: .nanoseconds(Int64(random.next() % nanoseconds))
        }
    }
}
