import SchedulerProbes
import Schedulers
import Synchronization

/// THR-6. Rounds of 1,000 actions, scheduled eight threads at a time, each thread waiting for
/// its action to run (on a virtual-time scheduler the rule's thread steps it once the batch
/// is done: one thread drives it, as tests do, while others schedule):
/// in a short-lived round each action comes from a thread of its own that then exits, in a
/// control round all come from eight threads that live on. The allocator's bytes in use are
/// read before and after each round, once every action ran, so what the actions, the
/// scheduler's queue and whatever serves it cost is in both rounds alike, and only what a
/// thread leaves behind tells them apart. A first round of each pays the one-time growth.
///
/// A subject whose threads each leave something grows in every short-lived round by at least
/// the smallest block the allocator hands out (32 bytes) per thread, more than the control
/// rounds' median; what a thread leaves is never given back in a later round. One that leaves
/// nothing grows by about the control's few kilobytes, except in bursts of tens of kilobytes
/// that hit both kinds of round, several in a row (a median of pairs would call such a
/// subject leaking). So the rule counts quiet short-lived rounds, those that grew by
/// less than half a block per thread (16,000 bytes) over the second smallest control, judged
/// from five pairs on (a burst may hit three controls of five, or the median of three): two are
/// evidence that threads do not each leave a block, and it stops there; a leak allows none,
/// so a subject with fewer than two in twelve pairs fails.
/// Inconclusive where the allocator does not tell its count (a sanitizer's), and in a process
/// that runs other work too (tests in parallel, `assertConformance`): its allocations would
/// be weighed with the threads'.
func threadsLeaveNothingBehind(_ ctx: RuleContext) throws(RuleFailure) {
    let (quietToPass, maximumPairs) = (2, 12)
    try ctx.requireExercised(
        ctx.ownsProcess,
        """
        THR-6 weighs the whole process's memory, so it judges only in a process of its own (a worker of `conformance \
        run`); here other work allocates beside it
        """
    )
    try ctx.requireExercised(
        HeapMeter.bytesInUse() != nil,
        """
        this process's allocator does not tell its bytes in use (not glibc, or a sanitizer's), so what threads leave \
        behind cannot be weighed
        """
    )
    let scheduler = ctx.makeScheduler()
    let virtual = scheduler as? any VirtualTimeScheduler
    let actions = 1_000
    // Eight threads at a time: on a loaded machine each batch waits for its slowest thread to
    // be given a core, so wider batches wait fewer times for the same thousand threads.
    let width = 8
    let smallestBlock = 32
    func round(shortLived: Bool) throws(RuleFailure) -> Int {
        let before = HeapMeter.bytesInUse() ?? 0
        let ran = Box(0)
        let allRan = Signal()
        let next = Box(0)
        // Each thread waits for its action, so whatever serves the scheduler (a run loop, a
        // pool's thread) wakes once per action in both kinds of round.
        let bound = ctx.timing.mustHappen
        @Sendable func scheduleOne() {
            let done = Signal()
            scheduler.schedule {
                done.fire()
                if ran.update({
                    $0 += 1
                    return $0
                }) == actions {
                    allRan.fire()
                }
            }
            if virtual == nil { _ = done.wait(bound) }
        }
        let batches = shortLived ? actions / width : 1
        for batch in 0..<batches {
            let stragglers = Threads.stragglers(width, within: ctx.timing.mustHappen) { _ in
                if shortLived { return scheduleOne() }
                while next.update({
                    $0 += 1
                    return $0
                }) <= actions {
                    scheduleOne()
                }
            }
            if !stragglers.isEmpty {
                throw ctx.hang(
                    "a thread scheduling actions had not exited after \(ctx.timing.mustHappen) (batch \(batch))",
                    stuck: stragglers.map { ("producer-\($0.index)", $0.threadID) })
            }
            virtual?.stepAll()
        }
        try ctx.waitFor(
            allRan, on: scheduler,
            "\(actions) actions from \(shortLived ? "short-lived threads" : "\(width) threads") (\(ran.value) ran)")
        try ctx.settle(scheduler)
        return (HeapMeter.bytesInUse() ?? 0) - before
    }
    _ = try round(shortLived: false)
    _ = try round(shortLived: true)
    let half = actions * smallestBlock / 2
    var grown: [(shortLived: Int, control: Int)] = []
    var quiet = 0
    while grown.count < maximumPairs, quiet < quietToPass {
        let control = try round(shortLived: false)
        grown.append((try round(shortLived: true), control))
        // The second smallest of five or more controls is a round without a burst: a burst
        // can hit two controls of three, and a leaking subject's short-lived rounds would
        // come out quiet against a median that was one.
        guard grown.count >= 5 else { continue }
        let baseline = grown.map(\.control).sorted()[1]
        quiet = grown.count { $0.shortLived - baseline < half }
    }
    ctx.note("\(quiet) quiet rounds of short-lived threads in \(grown.count) pairs")
    try ctx.expect(
        quiet >= quietToPass,
        """
        each of \(actions) threads that scheduled one action and exited left memory behind: over \(grown.count) \
        rounds of such threads the process grew by \(grown.map { "\($0.shortLived)" }.joined(separator: ", ")) bytes, \
        against \(grown.map { "\($0.control)" }.joined(separator: ", ")) when \(width) threads that lived on \
        scheduled as many; \(quiet == 0 ? "no round" : "only \(quiet) round") grew by less than \(half) bytes more \
        than the second smallest of those (\(quietToPass) needed)
        """
    )
}
