import SchedulerProbes

/// A small concurrent scenario, as Lincheck makes them: a sequential part that sets the
/// subject up, a parallel part of a few threads with a few operations each, and a
/// sequential part that runs after every thread finished.
public struct Scenario<Operation: Hashable & Sendable & CustomStringConvertible>: Hashable, Sendable,
    CustomStringConvertible
{
    /// Run first, on one thread.
    public var initial: [Operation]
    /// Run together, one array per thread.
    public var parallel: [[Operation]]
    /// Run last, on one thread, after every parallel thread finished.
    public var final: [Operation]

    /// A scenario of these parts.
    public init(initial: [Operation], parallel: [[Operation]], final: [Operation]) {
        self.initial = initial
        self.parallel = parallel
        self.final = final
    }

    /// Every operation, in the order the parts are listed.
    public var operations: [Operation] { initial + parallel.flatMap { $0 } + final }

    /// Its size as "2 threads × 3 operations" reads it: threads and the longest thread.
    public var shape: String {
        "\(parallel.count) thread\(parallel.count == 1 ? "" : "s") × \(parallel.map(\.count).max() ?? 0), \(operations.count) operations in all"
    }

    public var description: String {
        var lines: [String] = []
        if !initial.isEmpty { lines.append("  first:     " + initial.map(\.description).joined(separator: "; ")) }
        for (index, thread) in parallel.enumerated() {
            lines.append("  thread \(index + 1):  " + thread.map(\.description).joined(separator: "; "))
        }
        if !final.isEmpty { lines.append("  last:      " + final.map(\.description).joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }

    /// Smaller scenarios, smallest change first: a thread dropped, then one operation
    /// dropped from any part. Each still names only what its profile can run (an operation
    /// on something no longer made is the profile's to treat as a no-op).
    public var shrinks: [Scenario] {
        var smaller: [Scenario] = []
        for index in parallel.indices where parallel.count > 1 {
            var copy = self
            copy.parallel.remove(at: index)
            smaller.append(copy)
        }
        for index in parallel.indices {
            for position in parallel[index].indices {
                var copy = self
                copy.parallel[index].remove(at: position)
                if copy.parallel[index].isEmpty, copy.parallel.count > 1 { copy.parallel.remove(at: index) }
                smaller.append(copy)
            }
        }
        for position in initial.indices {
            var copy = self
            copy.initial.remove(at: position)
            smaller.append(copy)
        }
        for position in final.indices {
            var copy = self
            copy.final.remove(at: position)
            smaller.append(copy)
        }
        return smaller
    }
}

/// The seeded spreading of one run: how long each thread spins before each of its calls,
/// and how long each of the suite's actions spins while the subject runs it. Most spins are
/// nil or short, so calls released together overlap; a few are long, so the same calls also
/// run apart; each pair of calls meets in some runs and misses in others.
public struct Jitter: Sendable {
    /// The seed every spin of the run derives from.
    public let seed: UInt64

    /// A run's jitter.
    public init(seed: UInt64) { self.seed = seed }

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

    private static func spread(_ random: inout SplitMix64, longest nanoseconds: UInt64) -> Duration {
        switch random.next() % 10 {
        case 0..<4: .zero
        case 4..<7: .nanoseconds(Int64(random.next() % 3_000))
        default: .nanoseconds(Int64(random.next() % nanoseconds))
        }
    }
}
