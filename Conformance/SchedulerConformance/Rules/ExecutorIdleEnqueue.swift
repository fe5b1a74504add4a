import SchedulerProbes

/// EXE-3 from a plain thread, on a real executor with nothing to do: `enqueue` queues the
/// job and returns, and the job runs after, never inside it on the caller's thread.
///
/// Idle is evidence, not hope. A trial enqueues once the thread that ran the last job is
/// seen blocked in the kernel (its drain ended; not the state `R`), and only such a trial
/// can pass the part: one right after a job ran lands while the worker is still going idle,
/// and meets a busy executor (on a loaded machine, five trials in a row did, and an executor
/// that runs a job inline when idle passed). A run in which no trial saw the worker idle is
/// inconclusive. Where the kernel's view cannot be read, every trial counts, as before.
func enqueueOnAnIdleExecutorQueues(_ ctx: RuleContext, _ session: ExecutorSession) throws(RuleFailure) {
    guard session.executor.drive == nil else { return }
    // The kernel's ID of the thread that ran the last trial's job.
    var worker: Int32?
    var idleTrials = 0
    for trial in 1...5 {
        let idle = worker.map { id in
            CorePinning.isRunning(id) == nil
                || spinWait(upTo: ctx.timing.mustHappen) { CorePinning.isRunning(id) == false }
        }
        let caller = ThreadProbe.id
        let returned = Box(false)
        let inline = Box(false)
        let ranOn = Box<Int32?>(nil)
        let ran = Signal()
        session.submit {
            if ThreadProbe.id == caller && !returned.value { inline.value = true }
            ranOn.value = CorePinning.currentThreadID
            ran.fire()
        }
        returned.value = true
        try session.waitFor(ran, "a job enqueued on an idle executor (trial \(trial))")
        try ctx.expect(
            !inline.value, "a job enqueued from a plain thread on an idle executor ran inside `enqueue`, on that thread"
        )
        worker = ranOn.value
        if idle == true { idleTrials += 1 }
    }
    guard idleTrials > 0 else {
        throw RuleFailure(
            """
            the thread that ran the executor's jobs was never seen idle (blocked in the kernel) within \
            \(ctx.timing.mustHappen) before a trial: whether a job enqueued on an idle executor runs inside \
            `enqueue` was not tested
            """,
            kind: .inconclusive)
    }
}
