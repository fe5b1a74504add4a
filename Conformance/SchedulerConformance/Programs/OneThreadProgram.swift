import SchedulerProbes

/// A call a one-thread program makes, at its top or from inside an action or a recursion's
/// run. Actions and recursions are numbered in the order the program names them.
public indirect enum ProgramCall: Hashable, Sendable, CustomStringConvertible, ShrinkableCall {
    /// `schedule` of action n, which makes the calls of `body` when it runs.
    case schedule(Int, body: [ProgramCall])
    /// `scheduleRecursive` of recursion n. Each run makes the calls of `body`, then reschedules
    /// from inside its block while it has run fewer than `runs` times; with `late`, it keeps
    /// its `reschedule` instead, for a later ``reschedule(_:)`` to call.
    case recurse(Int, runs: Int, late: Bool, body: [ProgramCall])
    /// Calls the `reschedule` recursion n's latest run kept, if one did.
    case reschedule(Int)
    /// Disposes the handle the latest `schedule` or `scheduleRecursive` of n returned, if any.
    case dispose(Int)

    public var description: String {
        switch self {
        case .schedule(let n, let body): "schedule #\(n)" + Self.describe(body)
        case .recurse(let n, let runs, let late, let body):
            "recurse #\(n) \(late ? "keeping its reschedule" : "×\(runs)")" + Self.describe(body)
        case .reschedule(let n): "reschedule #\(n)"
        case .dispose(let n): "dispose #\(n)"
        }
    }

    private static func describe(_ body: [ProgramCall]) -> String {
        body.isEmpty ? "" : " { " + body.map(\.description).joined(separator: "; ") + " }"
    }

    var body: [ProgramCall] {
        switch self {
        case .schedule(_, let body), .recurse(_, _, _, let body): body
        case .reschedule, .dispose: []
        }
    }

    /// Every call it makes, counting itself.
    var size: Int { 1 + body.reduce(0) { $0 + $1.size } }

    func with(body: [ProgramCall]) -> ProgramCall {
        switch self {
        case .schedule(let n, _): .schedule(n, body: body)
        case .recurse(let n, let runs, let late, _): .recurse(n, runs: runs, late: late, body: body)
        case .reschedule, .dispose: self
        }
    }

    /// A recursion running once less, or rescheduling from inside its block instead of late.
    var fewer: ProgramCall? {
        guard case .recurse(let n, let runs, let late, let body) = self, runs > 1 || late else { return nil }
        return .recurse(n, runs: late ? runs : runs - 1, late: false, body: body)
    }
}

/// A program one thread runs against an immediate, trampoline or subscription scheduler: its
/// calls in order, made on a thread whose current scheduler is none or, with `insideHost`,
/// another scheduler whose action the program runs in.
public struct OneThreadProgram: Hashable, Sendable, ShrinkableProgram {
    public var calls: [ProgramCall]
    public var insideHost: Bool

    /// Every call it makes, nested ones included.
    public var size: Int { calls.reduce(0) { $0 + $1.size } }

    public var description: String {
        (insideHost ? "inside another scheduler's action:\n" : "") + calls.map { "  \($0)" }.joined(separator: "\n")
    }

    /// A program drawn from `random`: one to four calls at the top, bodies two deep at most.
    /// A dispose may name one of the next two actions, which may exist by the time it runs;
    /// a reschedule inside recursion n (at any depth) names only recursions numbered below
    /// it, so runs cannot feed each other for ever.
    public static func generate(_ random: inout SplitMix64) -> OneThreadProgram {
        var generator = ProgramGenerator(random: random)
        let calls = (0..<Int.random(in: 1...4, using: &generator.random)).map { _ in
            generator.call(depth: 0, rescheduleBelow: .max)
        }
        let insideHost = Bool.random(using: &generator.random)
        random = generator.random
        return OneThreadProgram(calls: calls, insideHost: insideHost)
    }

    /// Smaller programs to try when this one fails: each without one call, or one body, or
    /// with a recursion running fewer times, or at the top of its thread.
    var shrinks: [OneThreadProgram] {
        var smaller: [OneThreadProgram] = []
        if insideHost { smaller.append(OneThreadProgram(calls: calls, insideHost: false)) }
        for variant in ProgramShrinking.shrinks(of: calls) {
            smaller.append(OneThreadProgram(calls: variant, insideHost: insideHost))
        }
        return smaller
    }
}

/// Draws calls, numbering actions and recursions as it goes.
private struct ProgramGenerator {
    var random: SplitMix64
    var next = 0

    mutating func call(depth: Int, rescheduleBelow limit: Int) -> ProgramCall {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            let n = take()
            return .schedule(n, body: body(depth: depth, count: 0...2, rescheduleBelow: limit))
        case 4..<6:
            let n = take()
            let runs = Int.random(in: 1...3, using: &random)
            let late = Int.random(in: 0..<3, using: &random) == 0
            return .recurse(
                n, runs: runs, late: late, body: body(depth: depth, count: 0...1, rescheduleBelow: min(limit, n)))
        case 6..<8:
            return .dispose(Int.random(in: 0..<(next + 2), using: &random))
        default:
            let candidates = min(next, limit)
            guard candidates > 0 else { return .dispose(Int.random(in: 0..<(next + 2), using: &random)) }
            return .reschedule(Int.random(in: 0..<candidates, using: &random))
        }
    }

    private mutating func take() -> Int {
        defer { next += 1 }
        return next
    }

    private mutating func body(depth: Int, count: ClosedRange<Int>, rescheduleBelow limit: Int) -> [ProgramCall] {
        guard depth < 2 else { return [] }
        return (0..<Int.random(in: count, using: &random)).map { _ in
            call(depth: depth + 1, rescheduleBelow: limit)
        }
    }
}
