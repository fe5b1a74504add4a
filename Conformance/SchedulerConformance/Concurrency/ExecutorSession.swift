import Dispatch
import Foundation
import SchedulerProbes
import Schedulers

/// What an EXE rule works with: a fresh executor from the subject, and a way to give it
/// real jobs, made by the runtime, whose order of enqueueing the rule knows.
///
/// A serial executor gets its jobs through an actor bound to it, entered from
/// `Task.immediate` (which enqueues on the executor before it returns); a task executor
/// only, through `Task(executorPreference:)`, which enqueues the task's first job before it
/// returns. One call, one job.
struct ExecutorSession {
    let ctx: RuleContext
    let executor: ExecutorUnderTest
    private let actor: ExecutorBoundActor?

    init(_ ctx: RuleContext) {
        self.init(ctx, executor: ctx.subject.makeExecutor())
    }

    private init(_ ctx: RuleContext, executor: ExecutorUnderTest) {
        self.ctx = ctx
        self.executor = executor
        self.actor = executor.serial.map(ExecutorBoundActor.init)
    }

    /// A session on a second executor from the subject's own factory whose exclusive context
    /// differs from this one's (its own queue, thread or scheduler), or nil when a few tries
    /// make none (a factory handing out one shared executor, say). What "another executor"
    /// means to a rule: the suite's probe executor never shares the subject's threads.
    func sibling() -> ExecutorSession? {
        for _ in 0..<4 {
            let other = ctx.subject.makeExecutor()
            if other.exclusiveContext != executor.exclusiveContext { return ExecutorSession(ctx, executor: other) }
        }
        return nil
    }

    /// Enqueues one job that runs `body`, of the given priority.
    func submit(priority: TaskPriority = .medium, _ body: @escaping @Sendable () -> Void) {
        if let actor {
            Task.immediate(priority: priority) { await actor.run(body) }
        } else if let task = executor.task {
            Task(executorPreference: task, priority: priority) { body() }
        }
    }

    /// Enqueues one job that runs `body`, handing it a way to enqueue further jobs from inside
    /// itself, on its own thread, before it returns: ``submit(_:)`` called there, whose
    /// `Task.immediate` (nonisolated, so it never counts as already on the executor) or task
    /// preference enqueues before it returns, as from any other thread.
    func submit(nesting body: @escaping @Sendable (_ enqueue: (@escaping @Sendable () -> Void) -> Void) -> Void) {
        submit { body { job in self.submit(job) } }
    }

    /// Waits for `signal`: drives a virtual executor until it fires (or nothing is left to
    /// run), waits up to `Timing.mustHappen` for the others.
    func waitFor(_ signal: Signal, _ what: @autoclosure () -> String) throws(RuleFailure) {
        if let drive = executor.drive {
            drive()
            try ctx.expect(signal.hasFired, "\(what()): not done after running every ready job")
            return
        }
        guard signal.wait(ctx.timing.mustHappen) else {
            throw RuleFailure("\(what()): not done within \(ctx.timing.mustHappen)")
        }
    }

    /// Blocks a real executor with a job waiting on the returned gate, so what is enqueued
    /// next is provably queued together; on a virtual one nothing runs until driven anyway,
    /// so the gate is a formality. The runner releases forgotten gates after the rule.
    func hold(inside: Box<Bool>? = nil) throws(RuleFailure) -> Signal {
        guard executor.drive == nil else { return Signal() }
        let gate = Signal()
        let started = Signal()
        let bound = ctx.timing.mustHappen
        submit {
            inside?.value = true
            started.fire()
            _ = gate.wait(bound)
            inside?.value = false
        }
        ctx.track(gate)
        try waitFor(started, "the holding job started")
        return gate
    }

    /// Whether jobs can be held up by ``hold(inside:)``.
    var canHold: Bool { executor.drive == nil }
}
