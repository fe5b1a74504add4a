/// The events a correct virtual-time scheduler gives for a program on one thread, given
/// which calls the subject returned a handle for.
///
/// From the semantics and the VT rules: nothing runs but inside a driving call, on its
/// thread; work runs in order of (time, order of scheduling), a past deadline at the present;
/// `now` during a run is its time; an advance runs everything due by its target (inclusive),
/// work scheduled meanwhile included, then sets the time to the target, never backwards; a
/// step runs the earliest action (and moves the time to it); a disposed action, tick or
/// recursion never starts again. A repeating action ticks at its start and every interval
/// after, each tick at its own instant. A recursion's runs are work for the present: its first
/// queued at `scheduleRecursive`, one asked for inside a run queued once that run returned.
struct VirtualProgramModel {
    private enum Work {
        case action(ProgramHandleKey, body: [VirtualProgramCall])
        case tick(Int)
        case run(Int)
    }

    private struct Entry {
        let time: Int64
        let order: Int
        let work: Work
    }

    private enum Handle {
        case action(ProgramHandleKey)
        case repeating(Int)
        case recursion(Int)
    }

    /// A repeating action or a recursion: its runs so far, and whether it was disposed.
    private struct Series {
        let n: Int
        /// Ticks at most (repeating) or runs asked for (recursion).
        let runs: Int
        let interval: Int64
        let body: [VirtualProgramCall]
        var done = 0
        var disposed = false
        /// A recursion's runs asked for inside the run going on, queued once it returns.
        var deferred = 0
    }

    let tracksCurrent: Bool
    let handles: [ProgramHandleKey: Bool]
    private(set) var events: [VirtualProgramEvent] = []
    private var now: Int64 = 0
    private var order = 0
    private var queue: [Entry] = []
    private var numbering = ProgramNumbering()
    private var latest: [Int: Handle] = [:]
    private var disposed: Set<ProgramHandleKey> = []
    private var repeating: [Series] = []
    private var recursions: [Series] = []

    /// The events `program` gives.
    static func events(of program: VirtualProgram, tracksCurrent: Bool, handles: [ProgramHandleKey: Bool])
        -> [VirtualProgramEvent]
    {
        var model = VirtualProgramModel(tracksCurrent: tracksCurrent, handles: handles)
        for (index, call) in program.calls.enumerated() {
            model.perform(call)
            model.events.append(.returned(call: index, now: model.now))
        }
        return model.events
    }

    private init(tracksCurrent: Bool, handles: [ProgramHandleKey: Bool]) {
        self.tracksCurrent = tracksCurrent
        self.handles = handles
    }

    private mutating func perform(_ call: VirtualProgramCall) {
        switch call {
        case .schedule(let n, let body):
            let key = take(n)
            insert(.action(key, body: body), at: now)
            latest[n] = handles[key] == true ? .action(key) : nil
        case .scheduleAt(let n, let offset, let body):
            let key = take(n)
            insert(.action(key, body: body), at: VirtualProgramTime.deadline(offset: offset, now: now))
            latest[n] = handles[key] == true ? .action(key) : nil
        case .repeating(let n, let offset, let interval, _, let ticks, let body):
            let key = take(n)
            repeating.append(
                Series(n: n, runs: ticks, interval: Int64(interval) * VirtualProgramTime.millisecond, body: body))
            insert(.tick(repeating.count - 1), at: VirtualProgramTime.firstTick(offset: offset, now: now))
            latest[n] = handles[key] == true ? .repeating(repeating.count - 1) : nil
        case .recurse(let n, let runs, _, let body):
            let key = take(n)
            recursions.append(Series(n: n, runs: runs, interval: 0, body: body))
            insert(.run(recursions.count - 1), at: now)
            latest[n] = handles[key] == true ? .recursion(recursions.count - 1) : nil
        case .dispose(let n):
            switch latest[n] {
            case .action(let key): disposed.insert(key)
            case .repeating(let index): repeating[index].disposed = true
            case .recursion(let index): recursions[index].disposed = true
            case nil: break
            }
        case .now:
            events.append(.now(now))
        case .advanceBy(let ms):
            advance(to: now + Int64(ms) * VirtualProgramTime.millisecond)
        case .advanceTo(let ms):
            advance(to: Int64(ms) * VirtualProgramTime.millisecond)
        case .step(let count):
            var ran = 0
            while ran < count, let entry = takeLive(notAfter: .max) {
                run(entry)
                ran += 1
            }
            events.append(.stepped(ran))
        }
    }

    private mutating func take(_ n: Int) -> ProgramHandleKey {
        numbering.schedule(n)
    }

    /// Queues `work`; a past deadline at the present, since time never goes back.
    private mutating func insert(_ work: Work, at time: Int64) {
        queue.append(Entry(time: max(time, now), order: order, work: work))
        order += 1
    }

    private mutating func advance(to target: Int64) {
        while let entry = takeLive(notAfter: target) { run(entry) }
        now = max(now, target)
    }

    /// Takes the earliest entry due by `limit` whose work was not disposed (dropping those
    /// that were on the way), and moves the time to it.
    private mutating func takeLive(notAfter limit: Int64) -> Entry? {
        while let index = queue.indices.min(by: {
            (queue[$0].time, queue[$0].order) < (queue[$1].time, queue[$1].order)
        }),
            queue[index].time <= limit
        {
            let entry = queue.remove(at: index)
            let live: Bool =
                switch entry.work {
                case .action(let key, _): !disposed.contains(key)
                case .tick(let index): !repeating[index].disposed
                case .run(let index): !recursions[index].disposed
                }
            if live {
                now = max(now, entry.time)
                return entry
            }
        }
        return nil
    }

    private mutating func run(_ entry: Entry) {
        switch entry.work {
        case .action(let key, let body):
            runBody(key.n, body)
        case .tick(let index):
            // The next tick is due on the grid whatever this one does.
            insert(.tick(index), at: entry.time + repeating[index].interval)
            let series = repeating[index]
            let run = start(series.n)
            for call in series.body { perform(call) }
            repeating[index].done += 1
            if repeating[index].done == series.runs { repeating[index].disposed = true }
            events.append(.ended(series.n, run: run))
        case .run(let index):
            let series = recursions[index]
            recursions[index].deferred = 0
            let run = start(series.n)
            for call in series.body { perform(call) }
            recursions[index].done += 1
            if recursions[index].done < series.runs { recursions[index].deferred += 1 }
            events.append(.ended(series.n, run: run))
            for _ in 0..<recursions[index].deferred { insert(.run(index), at: now) }
        }
    }

    private mutating func runBody(_ n: Int, _ body: [VirtualProgramCall]) {
        let run = start(n)
        for call in body { perform(call) }
        events.append(.ended(n, run: run))
    }

    private mutating func start(_ n: Int) -> Int {
        let run = numbering.run(n)
        events.append(.started(n, run: run, at: now, asCurrent: tracksCurrent ? true : nil))
        return run
    }
}
