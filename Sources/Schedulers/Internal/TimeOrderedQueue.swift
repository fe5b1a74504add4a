/// A virtual-time scheduler's pending work, earliest first and FIFO among equal times.
///
/// Written by hand where swift-collections' `Heap` would serve: a drain of 10⁶ scrambled
/// deadlines ran 4× slower per action there than one of 10³ (a growth exponent of 1.20), 40 %
/// of it in `swift_retain`, because an entry copied down a level retains and releases its
/// work. Here entries are moved, never copied.
///
/// A heap alone still grew 2.3× per action from 10³ to 10⁶ (an exponent of 1.12–1.16): at 10⁶
/// its 24 MB no longer fit in a cache, and each removal missed at every level of its lower
/// half. So entries wait in three places:
/// - `incoming`, in the order they came (an insert is an append and one comparison), until a
///   read finds its earliest entry due first: work queued behind what is due now waits
///   there unsorted, and a lone entry due first (a job resumed at the present) is handed out
///   without a trip through the heap;
/// - `run`, a sorted array, with which a large batch of incoming entries is merged: a test
///   that queues its timers, then advances, reads them in order, from memory laid out in that
///   order;
/// - `heap`, a 4-ary min-heap, for a small batch (an action that schedules the next one),
///   which merging into a long run would make quadratic. A batch joins the run only when it
///   is at least an eighth of the run, so a merge costs at most nine moves per entry of the
///   batch.
/// The earliest entry is the least of the run's earliest, the heap's root and incoming's
/// earliest. A drain of 10⁶ scrambled deadlines now costs 1.4× per action what one of 10³
/// does (an exponent of 1.06).
struct TimeOrderedQueue<Work> {
    /// One pending piece of work and its place in the order.
    struct Entry {
        let time: SchedulerTime
        let sequence: UInt64
        let work: Work

        @inline(__always)
        func precedes(_ other: Entry) -> Bool { key < other.key }

        @inline(__always)
        fileprivate var key: Key { Key(time: time, sequence: sequence) }
    }

    /// An entry's place in the order, read without touching its work.
    fileprivate struct Key {
        let time: SchedulerTime
        let sequence: UInt64

        @inline(__always)
        static func < (lhs: Key, rhs: Key) -> Bool {
            lhs.time < rhs.time || (lhs.time == rhs.time && lhs.sequence < rhs.sequence)
        }
    }

    /// Where the earliest entry waits.
    private enum Place { case run, heap, incoming }

    /// A batch smaller than this goes to the heap whatever the run's length: sorting and
    /// merging a handful costs more than sifting them in.
    private static var smallestMergedBatch: Int { 64 }

    /// In the order inserted.
    private var incoming: [Entry] = []
    /// Sorted latest first, so that the earliest is taken from the end: `removeLast` moves an
    /// entry out, where reading from the front would copy it (a retain and a release of its
    /// work) or need optional slots.
    private var run: [Entry] = []
    private var heap: [Entry] = []
    /// The earliest of `incoming`, while it holds any.
    private var incomingEarliest: Key?
    /// Whether `incoming` came in order (jobs queued at the present, timers set in turn), so
    /// settling it needs no sort.
    private var incomingInOrder = true

    var count: Int { incoming.count + run.count + heap.count }

    mutating func insert(_ entry: Entry) {
        if let earliest = incomingEarliest {
            if entry.key < earliest { incomingEarliest = entry.key }
            if entry.key < incoming[incoming.count - 1].key { incomingInOrder = false }
        } else {
            (incomingEarliest, incomingInOrder) = (entry.key, true)
        }
        incoming.append(entry)
    }

    /// When the earliest entry is due, if there is one.
    func earliestTime() -> SchedulerTime? { earliest()?.key.time }

    /// Removes and returns the earliest entry (the first scheduled among the earliest); the
    /// queue must not be empty.
    mutating func removeMin() -> Entry {
        guard let (_, place) = earliest() else { preconditionFailure("removeMin() from an empty queue") }
        return remove(from: place)
    }

    /// Removes and returns the earliest entry if it is due at or before `limit`.
    mutating func removeMin(notAfter limit: SchedulerTime) -> Entry? {
        guard let (key, place) = earliest(), key.time <= limit else { return nil }
        return remove(from: place)
    }

    @inline(__always)
    private func earliest() -> (key: Key, place: Place)? {
        var least: (key: Key, place: Place)?
        if !run.isEmpty { least = (run[run.count - 1].key, .run) }
        if !heap.isEmpty, least.map({ heap[0].key < $0.key }) ?? true { least = (heap[0].key, .heap) }
        if let fromIncoming = incomingEarliest, least.map({ fromIncoming < $0.key }) ?? true {
            least = (fromIncoming, .incoming)
        }
        return least
    }

    private mutating func remove(from place: Place) -> Entry {
        switch place {
        case .heap:
            return removeHeapMin()
        case .run:
            let earliest = run.removeLast()
            // An exhausted run gives its memory back: a drain of 10⁶ would otherwise keep 24 MB.
            if run.isEmpty, run.capacity > Self.smallestMergedBatch { run = [] }
            return earliest
        case .incoming where incoming.count == 1:
            incomingEarliest = nil
            return incoming.removeLast()
        case .incoming:
            settle()
            return removeMin()
        }
    }

    /// Moves what came in since it was last settled into the run (a large batch) or the heap.
    private mutating func settle() {
        guard !incoming.isEmpty else { return }
        incomingEarliest = nil
        guard incoming.count >= Self.smallestMergedBatch, incoming.count * 8 >= run.count else {
            while !incoming.isEmpty { heapInsert(incoming.removeLast()) }
            return
        }
        if incomingInOrder { incoming.reverse() } else { incoming.sort { $1.precedes($0) } }
        if run.isEmpty {
            swap(&run, &incoming)
            return
        }
        // Both latest first; the earliest of either end goes next, so `merged` comes out
        // earliest first, and is turned around. Every entry is moved, never copied.
        var merged: [Entry] = []
        merged.reserveCapacity(run.count + incoming.count)
        while !incoming.isEmpty, !run.isEmpty {
            if incoming[incoming.count - 1].precedes(run[run.count - 1]) {
                merged.append(incoming.removeLast())
            } else {
                merged.append(run.removeLast())
            }
        }
        while !incoming.isEmpty { merged.append(incoming.removeLast()) }
        while !run.isEmpty { merged.append(run.removeLast()) }
        merged.reverse()
        run = merged
    }

    private mutating func heapInsert(_ entry: Entry) {
        heap.append(entry)
        heap.withUnsafeMutableBufferPointer { heap in
            guard let base = heap.baseAddress else { return }
            // Entries are moved, never copied: a copy would retain and release each moved
            // entry's work, a reference to a scattered object (a cache miss per level).
            var hole = heap.count - 1
            let moving = (base + hole).move()
            while hole > 0 {
                let parent = (hole - 1) / 4
                guard moving.precedes(base[parent]) else { break }
                (base + hole).moveInitialize(from: base + parent, count: 1)
                hole = parent
            }
            (base + hole).initialize(to: moving)
        }
    }

    private mutating func removeHeapMin() -> Entry {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return last }
        return heap.withUnsafeMutableBufferPointer { heap in
            let base = heap.baseAddress!
            // The hole starts at the root and moves down to where the last entry belongs.
            let earliest = base.move()
            var hole = 0
            let count = heap.count
            while true {
                let first = 4 * hole + 1
                guard first < count else { break }
                var least = first
                for child in first + 1..<Swift.min(first + 4, count) where base[child].precedes(base[least]) {
                    least = child
                }
                guard base[least].precedes(last) else { break }
                (base + hole).moveInitialize(from: base + least, count: 1)
                hole = least
            }
            (base + hole).initialize(to: last)
            return earliest
        }
    }
}
