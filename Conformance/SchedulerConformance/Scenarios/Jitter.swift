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

    /// A point of a run: a thread about to make one of its calls (threads numbered from 1,
    /// calls from 0), or one of the suite's actions about to return.
    enum Party: Hashable, Sendable {
        case call(thread: Int, index: Int)
        case actionReturn(Int)
    }

    /// Two parties that wait for each other, each at most ``Meeting/patience``, so one that
    /// never comes (an action disposed in time) costs a moment, not a hang.
    /// After meeting, a calling party waits ``lag`` more, so that across runs its call
    /// sweeps the first microseconds of what the other party does next.
    final class Meeting: Sendable {
        static let patience = Duration.microseconds(300)
        let parties: Set<Party>
        let lag: Duration
        private let arrived = Atomic<Int>(0)

        init(_ parties: Set<Party>, lag: Duration) {
            self.parties = parties
            self.lag = lag
        }

        func arrive(_ party: Party) {
            guard parties.contains(party) else { return }
            arrived.add(1, ordering: .acquiringAndReleasing)
            _ = spinWait(upTo: Self.patience) { arrived.load(ordering: .acquiring) >= 2 }
            if case .call = party, lag > .zero { spin(lag) }
        }
    }

    /// A run's jitter. `targets` has, for each parallel thread, for each of its calls, the
    /// action the call acts on, if any (a dispose of action n): such a call is met with the
    /// return of action n − 1, the moment a serial subject decides whether n starts. `actions`
    /// is how many of the suite's actions the scenario may make.
    public init(seed: UInt64, targets: [[Int?]], actions: Int) {
        self.seed = seed
        var random = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        let calls = targets.enumerated().flatMap { thread, calls in
            calls.indices.map { Party.call(thread: thread + 1, index: $0) }
        }
        func any(_ parties: [Party]) -> Party { parties[Int(random.next() % UInt64(parties.count))] }
        func thread(_ party: Party) -> Int { if case .call(let thread, _) = party { thread } else { 0 } }
        let lag = Duration.nanoseconds(Int64(random.next() % 4_000))
        switch random.next() % 3 {
        case 0 where Set(calls.map(thread)).count > 1:
            let first = any(calls)
            meeting = Meeting([first, any(calls.filter { thread($0) != thread(first) })], lag: .zero)
        case 1 where actions > 0 && !calls.isEmpty:
            let call = any(calls)
            guard case .call(let thread, let index) = call, let target = targets[thread - 1][index], target > 1 else {
                meeting = Meeting([call, .actionReturn(1 + Int(random.next() % UInt64(actions)))], lag: lag)
                break
            }
            meeting = Meeting([call, .actionReturn(target - 1)], lag: lag)
        default:
            meeting = nil
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
        return Self.spread(&random, longest: 200_000)
    }

    /// Called by thread `thread` before its call `index`: waits there if that is a meeting point.
    func beforeCall(_ index: Int, of thread: Int) { meeting?.arrive(.call(thread: thread, index: index)) }

    /// Called by the suite's action `action` just before it returns.
    public func beforeReturn(of action: Int) { meeting?.arrive(.actionReturn(action)) }

    private static func spread(_ random: inout SplitMix64, longest nanoseconds: UInt64) -> Duration {
        switch random.next() % 10 {
        case 0..<4: .zero
        case 4..<7: .nanoseconds(Int64(random.next() % 3_000))
        default: .nanoseconds(Int64(random.next() % nanoseconds))
        }
    }
}
