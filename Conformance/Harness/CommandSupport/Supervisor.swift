import Foundation
import SchedulerDiagnostics
import SchedulerProbes
import SchedulerVocabulary

/// The parent side of isolation, for both commands: runs items (rules, or one stress run)
/// in child worker processes under a watchdog, restarting a worker after a crash or a hang
/// so that every item gets an outcome.
///
/// An item is 1. not started, 2. started (a `started` message arrived, which sets the
/// watchdog's deadline to now + `allowance`), 3. finished (its result arrived). A worker
/// that exits with an item in state 2 crashed in it; one still in state 2 at the deadline
/// hung, and its threads' stacks are taken with gdb before it is killed.
package enum Supervisor {
    /// How one item ended.
    package enum Outcome: Sendable {
        /// It reported a result.
        case finished(WorkerMessage)
        /// It ran past the deadline; the worker was killed after its stacks were taken.
        case timedOut(seconds: Double, stacks: String?)
        /// The worker died while running it.
        case crashed(seconds: Double, reason: String, standardError: String)
        /// The worker's resident memory passed its cap while running it; it was killed after
        /// its stacks were taken.
        case outgrew(seconds: Double, bytes: UInt64, stacks: String?)
        /// A worker failed before starting it (it could not be launched, say).
        case notRun(reason: String)

        /// Whether the worker died in this item: a hang or a crash.
        var isDeath: Bool {
            switch self {
            case .timedOut, .crashed, .outgrew: true
            case .finished, .notRun: false
            }
        }

        /// Whether it kills a mutant: the worker died in it, or its rule failed, hung or erred.
        var isKill: Bool {
            if case .finished(.rule(let result)) = self { return result.status.isFailure }
            return isDeath
        }
    }

    /// Runs `items` in workers launched as `executable arguments(remaining items)` with
    /// `environment`, each item allowed `allowance` and the workers `memoryCap` bytes of
    /// resident memory, and returns every item's outcome. A worker that leaves items (it
    /// died, or stopped itself after a rule that left work running) is followed by a fresh
    /// one for the rest, unless `stopAtFirstKill` and an item killed: then the rest get no
    /// outcome (`conformance mutate` needs one kill, not every rule's).
    package static func run(
        items: [String], executable: String = CommandLine.arguments[0], environment: [String: String] = [:],
        allowance: Duration, memoryCap: UInt64 = WorkerProcess.defaultMemoryCap, stopAtFirstKill: Bool = false,
        arguments: @escaping @Sendable ([String]) -> [String]
    ) -> [String: Outcome] {
        var outcomes: [String: Outcome] = [:]
        var pending = items
        while !pending.isEmpty {
            let batch = pending
            let attempt = runBlocking {
                await runWorker(
                    executable: executable, arguments: arguments(batch), environment: environment, allowance: allowance,
                    memoryCap: memoryCap)
            }
            for (item, outcome) in attempt.outcomes where batch.contains(item) {
                // A mutant needs a kill, not its cause: only a check's crashes are run again.
                outcomes[item] =
                    stopAtFirstKill
                    ? outcome
                    : postMortem(
                        outcome, executable: executable, arguments: arguments([item]), environment: environment)
            }
            let unfinished = batch.filter { outcomes[$0] == nil }
            if unfinished.count == batch.count {
                // Nothing started: the same launch would fail again.
                for item in unfinished {
                    outcomes[item] = .notRun(reason: attempt.failure ?? "the worker exited without running anything")
                }
            }
            pending = unfinished.filter { outcomes[$0] == nil }
            if stopAtFirstKill, attempt.outcomes.values.contains(where: \.isKill) { break }
        }
        return outcomes
    }

    /// A crash that left nothing to read (a stack overflow on a thread without an alternate
    /// signal stack dies before the runtime's backtracer can write a word) is run again,
    /// alone, under gdb, whose stack of the dying thread names where it died; any other
    /// outcome, or a crash gdb could not catch again, is returned as it was.
    private static func postMortem(
        _ outcome: Outcome, executable: String, arguments: [String], environment: [String: String]
    ) -> Outcome {
        guard case .crashed(let seconds, let reason, let standardError) = outcome,
            CrashDiagnosis(standardError: standardError).summary == nil,
            let stack = runBlocking({
                await ThreadDump.ofCrash(
                    executable: executable, arguments: arguments, environment: environment, within: .seconds(60))
            }),
            let summary = HangDiagnosis.crashSummary(ofCrashStack: stack)
        else { return outcome }
        let status = reason.components(separatedBy: ": ").first ?? reason
        return .crashed(
            seconds: seconds, reason: "\(status): \(summary) (seen when it ran again alone, under gdb)",
            standardError: standardError + "\n" + stack)
    }

    /// `1.2 GiB`, for messages.
    package static func gibibytes(_ bytes: UInt64) -> String {
        String(format: "%.2f GiB", Double(bytes) / Double(1 << 30))
    }

    private struct Attempt: Sendable {
        package var outcomes: [String: Outcome] = [:]
        /// Why the worker ended when no item was running.
        package var failure: String?
    }

    private struct Progress: Sendable {
        package var running: (item: String, started: ContinuousClock.Instant)?
        package var finished: [String: Outcome] = [:]
        /// When the worker last said anything: between items, the watchdog times from here.
        package var lastActivity = ContinuousClock.now
        /// Set when the watchdog fired; later lines are ignored.
        package var watchdogFired = false
        package var timedOut: (item: String, started: ContinuousClock.Instant)?
    }

    private static func runWorker(
        executable: String, arguments: [String], environment: [String: String], allowance: Duration,
        memoryCap: UInt64
    ) async -> Attempt {
        let progress = Box(Progress())
        let exit = await WorkerProcess.run(
            executable: executable, arguments: arguments, environment: environment,
            onLine: { line in
                guard let message = WorkerMessage.parse(line) else { return }
                progress.update { state in
                    guard !state.watchdogFired else { return }
                    state.lastActivity = .now
                    if case .started(let item) = message {
                        state.running = (item, .now)
                    } else if let item = message.finishedItem {
                        state.finished[item] = .finished(message)
                        if state.running?.item == item { state.running = nil }
                    }
                }
            },
            deadline: {
                let state = progress.value
                return (state.running?.started ?? state.lastActivity) + allowance
            },
            memoryCap: memoryCap,
            onTimeout: {
                progress.update { state in
                    state.watchdogFired = true
                    state.timedOut = state.running
                }
            }
        )
        let state = progress.value
        var attempt = Attempt(outcomes: state.finished)
        if let running = state.timedOut ?? state.running {
            let seconds = (ContinuousClock.now - running.started).timeInterval
            attempt.outcomes[running.item] =
                if let bytes = exit.outgrew {
                    .outgrew(seconds: seconds, bytes: bytes, stacks: exit.threadDump)
                } else if exit.timedOut {
                    .timedOut(seconds: seconds, stacks: exit.threadDump)
                } else {
                    .crashed(
                        seconds: seconds, reason: exit.crashReason,
                        standardError: String(exit.standardError.suffix(1 << 16)))
                }
        } else if let bytes = exit.outgrew {
            attempt.failure =
                "the worker grew to \(Self.gibibytes(bytes)) of resident memory between items, past its cap"
        } else if state.watchdogFired {
            attempt.failure = "the worker hung between items for \(allowance) and was killed"
        } else if !exit.succeeded {
            attempt.failure = exit.crashReason
        }
        return attempt
    }
}
