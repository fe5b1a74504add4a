import SchedulerProbes
import SchedulerVocabulary

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
    /// Whether shrinking keeps ``final`` whole: a profile whose outcomes are seen only once
    /// its last steps ran (a manual clock's sleepers end after the run that resumes them
    /// settles) would otherwise shrink to a history that no longer shows them.
    public var keepsFinal = false

    /// The most threads a parallel part may have: the runner keeps a crew of this many.
    public static var mostThreads: Int { 4 }

    /// A scenario of these parts; `parallel` has at most ``mostThreads`` threads.
    public init(initial: [Operation], parallel: [[Operation]], final: [Operation], keepsFinal: Bool = false) {
        precondition(parallel.count <= Self.mostThreads, "a scenario has at most \(Self.mostThreads) threads")
        self.initial = initial
        self.parallel = parallel
        self.final = final
        self.keepsFinal = keepsFinal
    }

    /// For a refused scenario in which two threads drive the subject (`drives` tells a driving
    /// call), the declaration of a subject that must be driven from one thread at a time.
    func twoDriversExplanation(_ rule: RuleID, drives: (Operation) -> Bool) -> String? {
        guard parallel.filter({ $0.contains(where: drives) }).count > 1 else { return nil }
        return """
            Two threads drive it at once here. A subject that must only be driven from one thread at a time \
            declares `\(Declaration.drivenFrom(.oneThread).code)` in its adapter, and \(rule) then drives it from one.
            """
    }

    /// Every operation, in the order the parts are listed.
    public var operations: [Operation] { initial + parallel.flatMap { $0 } + final }

    /// Its size as "2 threads × 3 operations" reads it: threads and the longest thread.
    public var shape: String {
        """
        \(parallel.count) thread\(parallel.count == 1 ? "" : "s") × \(parallel.map(\.count).max() ?? 0), \
        \(operations.count) operations in all
        """
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

    /// Smaller scenarios, smallest change first: a thread dropped, then one operation dropped
    /// from any part (but a final part that ``keepsFinal``). Each still names only what its
    /// profile can run (an operation on something no longer made is the profile's to treat as
    /// a no-op).
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
        for position in final.indices where !keepsFinal {
            var copy = self
            copy.final.remove(at: position)
            smaller.append(copy)
        }
        return smaller
    }
}

extension SplitMix64 {
    /// One of actions 1...`made`, for a call that acts on one: in half the draws one of the
    /// two latest, which are the likeliest still to be pending when the call comes.
    mutating func action(of made: Int) -> Int {
        precondition(made > 0, "no action to act on")
        return next() % 2 == 0 ? max(1, made - Int(next() % 2)) : Int(next() % UInt64(made)) + 1
    }

    /// One of `elements`, each as likely.
    mutating func element(of elements: [Int]) -> Int {
        precondition(!elements.isEmpty, "nothing to choose from")
        return elements[Int(next() % UInt64(elements.count))]
    }
}
