import SchedulerProbes

/// A call a one-thread virtual-time program makes (LIN-7): at its top, or from inside an
/// action, a tick or a recursion's run (every call but the driving ones, which a program
/// makes only at its top). Work is numbered in the order the program names it.
///
/// Deadlines are chosen so that no order the semantics leave open is ever asked: a one-shot
/// deadline falls on an even millisecond, a tick on one millisecond past a multiple of four,
/// so a tick never shares its instant with work scheduled for a deadline, and its next tick
/// never shares one with what it schedules (whether a scheduler queues the next tick before
/// or after running this one is its own business).
public indirect enum VirtualProgramCall: Hashable, Sendable, CustomStringConvertible, ShrinkableCall {
    /// `schedule` of action n, for the present.
    case schedule(Int, body: [VirtualProgramCall])
    /// `schedule(at:)` of action n, `offset` ms from the even millisecond at or before `now`:
    /// negative ones are past (they run at the present), 10⁶ ms is far in the future.
    case scheduleAt(Int, offset: Int, body: [VirtualProgramCall])
    /// `schedule(at:repeatingEvery:leeway:)` of n: its first tick at the first millisecond past
    /// a multiple of four that is later than `now` + `offset` ms, then every `interval` ms;
    /// tick number `ticks` disposes it once its body's calls are made.
    case repeating(Int, offset: Int, interval: Int, leeway: Int, ticks: Int, body: [VirtualProgramCall])
    /// `scheduleRecursive` of n, each run making the calls of `body` and rescheduling from
    /// inside its block (before them with `early`, after them otherwise) while it has run
    /// fewer than `runs` times.
    case recurse(Int, runs: Int, early: Bool, body: [VirtualProgramCall])
    /// `dispose()` of the latest handle a schedule of n returned, if any.
    case dispose(Int)
    /// Reads `now`.
    case now
    /// `advance(by:)` so many ms.
    case advanceBy(Int)
    /// `advance(to:)` so many ms after the time the program began (an earlier target runs
    /// nothing and keeps the time).
    case advanceTo(Int)
    /// `step(n)`: the earliest action, n times over.
    case step(Int)

    public var description: String {
        switch self {
        case .schedule(let n, let body): "schedule #\(n)" + Self.describe(body)
        case .scheduleAt(let n, let offset, let body): "schedule #\(n) at \(offset) ms" + Self.describe(body)
        case .repeating(let n, let offset, let interval, let leeway, let ticks, let body):
            "repeat #\(n) from \(offset) ms on, every \(interval) ms (leeway \(leeway) ms), \(ticks) tick(s)"
                + Self.describe(body)
        case .recurse(let n, let runs, let early, let body):
            "recurse #\(n) ×\(runs)\(early ? ", rescheduling first" : "")" + Self.describe(body)
        case .dispose(let n): "dispose #\(n)"
        case .now: "now"
        case .advanceBy(let ms): "advance(by: \(ms) ms)"
        case .advanceTo(let ms): "advance(to: \(ms) ms)"
        case .step(let count): "step(\(count))"
        }
    }

    private static func describe(_ body: [VirtualProgramCall]) -> String {
        body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }"
    }

    var body: [VirtualProgramCall] {
        switch self {
        case .schedule(_, let body), .scheduleAt(_, _, let body), .repeating(_, _, _, _, _, let body),
            .recurse(_, _, _, let body):
            body
        case .dispose, .now, .advanceBy, .advanceTo, .step: []
        }
    }

    /// Every call it makes, counting itself.
    var size: Int { 1 + body.reduce(0) { $0 + $1.size } }

    func with(body: [VirtualProgramCall]) -> VirtualProgramCall {
        switch self {
        case .schedule(let n, _): .schedule(n, body: body)
        case .scheduleAt(let n, let offset, _): .scheduleAt(n, offset: offset, body: body)
        case .repeating(let n, let offset, let interval, let leeway, let ticks, _):
            .repeating(n, offset: offset, interval: interval, leeway: leeway, ticks: ticks, body: body)
        case .recurse(let n, let runs, let early, _): .recurse(n, runs: runs, early: early, body: body)
        case .dispose, .now, .advanceBy, .advanceTo, .step: self
        }
    }

    var fewer: VirtualProgramCall? {
        switch self {
        case .recurse(let n, let runs, let early, let body) where runs > 1:
            .recurse(n, runs: runs - 1, early: early, body: body)
        case .repeating(let n, let offset, let interval, let leeway, let ticks, let body) where ticks > 1:
            .repeating(n, offset: offset, interval: interval, leeway: leeway, ticks: ticks - 1, body: body)
        case .step(let count) where count > 1: .step(count - 1)
        default: nil
        }
    }
}

/// What a virtual-time program's run showed, in order; times in nanoseconds after the time
/// the program began.
public enum VirtualProgramEvent: Hashable, Sendable, CustomStringConvertible {
    /// Run `run` (counted from 0) of action, tick or recursion n began with `now` at `at`, as
    /// the current scheduler or not (nil when the subject does not claim to track it).
    case started(Int, run: Int, at: Int64, asCurrent: Bool?)
    /// That run returned.
    case ended(Int, run: Int)
    /// A `now` call answered this.
    case now(Int64)
    /// A `step(n)` ran this many actions.
    case stepped(Int)
    /// Call `call` at the program's top returned, `now` then saying `now`.
    case returned(call: Int, now: Int64)
    /// Scheduling n (or, for -1, an advance) threw, which no valid call does.
    case threw(Int)

    public var description: String {
        switch self {
        case .started(let n, let run, let at, let current):
            "#\(n) run \(run) starts at \(Self.time(at))"
                + (current.map { $0 ? ", as the current scheduler" : ", not as the current scheduler" } ?? "")
        case .ended(let n, let run): "#\(n) run \(run) returns"
        case .now(let at): "now says \(Self.time(at))"
        case .stepped(let count): "the step ran \(count)"
        case .returned(let call, let now): "call \(call) at the top returns at \(Self.time(now))"
        case .threw(let n): n < 0 ? "an advance throws" : "scheduling #\(n) throws"
        }
    }

    private static func time(_ nanoseconds: Int64) -> String {
        nanoseconds % 1_000_000 == 0 ? "\(nanoseconds / 1_000_000) ms" : "\(nanoseconds) ns"
    }
}

/// Where LIN-7's relative deadlines land, in nanoseconds after the program's start; the
/// model and the run both compute them from what `now` says.
enum VirtualProgramTime {
    static let millisecond: Int64 = 1_000_000

    /// `offset` ms from the even millisecond at or before `now`.
    static func deadline(offset: Int, now: Int64) -> Int64 {
        floor(now, 2 * millisecond) * 2 * millisecond + Int64(offset) * millisecond
    }

    /// The first millisecond past a multiple of four later than `now` + `offset` ms.
    static func firstTick(offset: Int, now: Int64) -> Int64 {
        let base = now + Int64(offset) * millisecond
        return (floor(base - millisecond, 4 * millisecond) + 1) * 4 * millisecond + millisecond
    }

    private static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        value >= 0 ? value / unit : -((-value + unit - 1) / unit)
    }
}

/// A program one thread runs against a virtual-time scheduler: its calls in order.
public struct VirtualProgram: Hashable, Sendable, ShrinkableProgram {
    public var calls: [VirtualProgramCall]

    public var size: Int { calls.reduce(0) { $0 + $1.size } }

    public var description: String { calls.map { "  \($0)" }.joined(separator: "\n") }

    /// What a program may call: each door only where the subject claims it.
    public struct Doors: Sendable {
        /// `step`, where a step runs one action (`singleStep`).
        public var steps: Bool
        /// `schedule(at:)` (`timers`).
        public var timers: Bool
        /// Repeating series (`repeating`).
        public var repeating: Bool

        public init(steps: Bool, timers: Bool, repeating: Bool) {
            self.steps = steps
            self.timers = timers
            self.repeating = repeating
        }
    }

    /// A program drawn from `random`: two to seven calls at the top, about a third of them
    /// driving calls, bodies two deep at most, through `doors` only.
    public static func generate(_ random: inout SplitMix64, doors: Doors) -> VirtualProgram {
        var generator = VirtualProgramGenerator(random: random, doors: doors)
        let calls = (0..<Int.random(in: 2...7, using: &generator.random)).map { _ in generator.call(depth: 0) }
        random = generator.random
        return VirtualProgram(calls: calls)
    }

    /// Smaller programs to try when this one fails: each without one call, or one body, or
    /// with one call doing less.
    var shrinks: [VirtualProgram] { ProgramShrinking.shrinks(of: calls).map(VirtualProgram.init) }
}

/// Draws calls, numbering work as it goes.
private struct VirtualProgramGenerator {
    var random: SplitMix64
    let doors: VirtualProgram.Doors
    var next = 0

    private static let offsets = [-4, -2, 0, 0, 2, 4, 6, 1_000_000]

    /// A call at `depth`; `inTick`, one a tick makes itself, which starts no series: its first
    /// tick could fall at this series' next one, whose order against it is the scheduler's choice.
    mutating func call(depth: Int, inTick: Bool = false) -> VirtualProgramCall {
        // At the top, seven draws in twenty drive the scheduler.
        switch Int.random(in: 0..<(depth == 0 ? 20 : 13), using: &random) {
        case 0..<4:
            return .schedule(take(), body: body(depth: depth, count: 0...2))
        case 4..<7 where !doors.timers:
            return .schedule(take(), body: body(depth: depth, count: 0...1))
        case 4..<7:
            let offset = random.element(of: Self.offsets)
            return .scheduleAt(take(), offset: offset, body: body(depth: depth, count: 0...1))
        case 7..<9 where inTick || !doors.repeating:
            return .schedule(take(), body: body(depth: depth, count: 0...1))
        case 7..<9:
            return .repeating(
                take(), offset: random.element(of: [0, 2, 6]), interval: random.element(of: [4, 8]),
                leeway: random.element(of: [0, 1, 4]), ticks: Int.random(in: 1...3, using: &random),
                body: body(depth: depth, count: 0...1, inTick: true))
        case 9:
            return .recurse(
                take(), runs: Int.random(in: 1...3, using: &random), early: Bool.random(using: &random),
                body: body(depth: depth, count: 0...1))
        case 10, 11:
            return .dispose(Int.random(in: 0..<(next + 2), using: &random))
        case 12:
            return .now
        case 13..<16:
            return .advanceBy(random.element(of: [0, 1, 2, 3, 5, 8, 12]))
        case 16, 17:
            return .advanceTo(Int.random(in: 0...24, using: &random))
        default:
            return doors.steps ? .step(Int.random(in: 1...4, using: &random)) : .advanceBy(4)
        }
    }

    private mutating func take() -> Int {
        defer { next += 1 }
        return next
    }

    private mutating func body(depth: Int, count: ClosedRange<Int>, inTick: Bool = false) -> [VirtualProgramCall] {
        guard depth < 2 else { return [] }
        return (0..<Int.random(in: count, using: &random)).map { _ in call(depth: depth + 1, inTick: inTick) }
    }
}
