import SchedulerProbes

/// A program a one-thread rule (LIN-6, LIN-7) generates, judges event by event and shrinks
/// when the subject's events depart from its model's.
protocol ShrinkableProgram: CustomStringConvertible {
    /// Every call it makes, nested ones included.
    var size: Int { get }
    /// Smaller programs to try in its place, each a little smaller.
    var shrinks: [Self] { get }
}

/// How a one-thread rule (LIN-6, LIN-7) explores: programs from consecutive seeds, judged on a
/// fresh thread, until one is refused, all were judged, or half the thread's bound passed (a
/// slow build, a sanitizer's, judges fewer: the note says how many).
enum ProgramExploration {
    /// The failure report of the first program refused, if one was, and how many were judged.
    /// `judging` makes the judge on the fresh thread; it answers a program and its seed with
    /// the report when the subject refuses it.
    static func explore<Program>(
        _ context: RuleContext, programs: Int, within bound: Duration,
        generate: @escaping @Sendable (inout SplitMix64) -> Program,
        judging: @escaping @Sendable () throws(RuleFailure) -> (Program, UInt64) throws(RuleFailure) -> String?
    ) throws(RuleFailure) -> (failure: String?, ran: Int) {
        let exploration = context.exploration
        let first = exploration.seed ?? UInt64.random(in: 0 ... .max)
        let count = exploration.replay ? 1 : programs
        return try context.onFreshThread(within: bound) { () throws(RuleFailure) -> (failure: String?, ran: Int) in
            let judge = try judging()
            let deadline = ContinuousClock.now + bound / 2
            for index in 0..<count {
                if index > 0, ContinuousClock.now >= deadline { return (nil, index) }
                let seed = first &+ UInt64(index)
                var random = SplitMix64(seed: seed)
                if let failure = try judge(generate(&random), seed) { return (failure, index + 1) }
            }
            return (nil, count)
        }
    }
}

/// A call of a one-thread program, whose body (if any) is calls too.
protocol ShrinkableCall {
    /// The calls of its body, if it has one.
    var body: [Self] { get }
    /// The same call with `body`.
    func with(body: [Self]) -> Self
    /// The same call doing less (a run or a tick fewer), or nil when it cannot.
    var fewer: Self? { get }
}

enum ProgramShrinking {
    /// Each list a step smaller than `calls`: without one call, with one call doing less, or
    /// with one body smaller.
    static func shrinks<Call: ShrinkableCall>(of calls: [Call]) -> [[Call]] {
        var smaller: [[Call]] = []
        for index in calls.indices {
            var without = calls
            without.remove(at: index)
            smaller.append(without)
            let call = calls[index]
            if let fewer = call.fewer {
                var changed = calls
                changed[index] = fewer
                smaller.append(changed)
            }
            for body in shrinks(of: call.body) {
                var changed = calls
                changed[index] = call.with(body: body)
                smaller.append(changed)
            }
        }
        return smaller
    }

    /// The smallest program `refusal` still refuses, with that refusal as it was seen, found
    /// by taking the first refused shrink until none is, within `time` and `runs` runs.
    ///
    /// Each refusal is kept as it was seen, so a subject that refuses a program only now and
    /// then (a race) still shows the events that gave it away.
    static func smallest<Program: ShrinkableProgram, Refusal>(
        _ program: Program, _ first: Refusal, within time: Duration, runs limit: Int,
        refusal: (Program) -> Refusal?
    ) -> (program: Program, refusal: Refusal) {
        var smallest = (program: program, refusal: first)
        var runs = 0
        var shrank = true
        let deadline = ContinuousClock.now + time
        while shrank && runs < limit && ContinuousClock.now < deadline {
            shrank = false
            for candidate in smallest.program.shrinks {
                runs += 1
                if let refused = refusal(candidate) {
                    smallest = (candidate, refused)
                    shrank = true
                    break
                }
                if runs >= limit { break }
            }
        }
        return smallest
    }

    /// Where two event lists part, and both lists, as a failure prints them.
    static func parting<Event: Equatable & CustomStringConvertible>(expected: [Event], got: [Event]) -> String {
        let common = min(expected.count, got.count)
        let at = (0..<common).first { expected[$0] != got[$0] } ?? common
        func event(_ events: [Event]) -> String { at < events.count ? "\(events[at])" : "nothing more" }
        return """
            They part at event \(at + 1): the model has \(event(expected)), the subject \(event(got)).
            The model: \(expected.map(\.description).joined(separator: "; "))
            The subject: \(got.map(\.description).joined(separator: "; "))
            """
    }
}
