import Testing

@testable import Schedulers

/// The virtual-time scheduler's queue against a sorted list, its model: every sequence of
/// inserts and removals hands the entries out by time, FIFO among equal times, and frees
/// each one exactly once (entries are moved, never copied), whether they wait in the heap,
/// in the sorted run that a large batch is merged into, or unsettled among those that came
/// in (in order, as jobs queued at the present do, or not).
@Suite struct TimeOrderedQueueTests {
    /// Counts its instances alive in `alive`, so a lost or doubled entry shows.
    final class Token {
        let id: Int
        let alive: Counter
        init(_ id: Int, _ alive: Counter) {
            self.id = id
            self.alive = alive
            alive.value += 1
        }
        deinit { alive.value -= 1 }
    }

    /// One test case's count (the cases run in parallel; each counts its own tokens).
    final class Counter { var value = 0 }

    @Test(arguments: [1, 2, 3, 4, 5, 17, 1_000], [false, true])
    func handsEntriesOutInTimeOrderFIFOOnTies(seed: UInt64, burstsInOrder: Bool) {
        var generator = SplitMix(seed: seed)
        let alive = Counter()
        do {
            var queue = TimeOrderedQueue<Token>()
            var model: [(time: UInt64, sequence: UInt64, id: Int)] = []
            var sequence: UInt64 = 0
            for step in 0..<3_000 {
                // Few distinct times, so ties are common; removals a third of the time.
                if generator.next() % 3 == 0, !model.isEmpty {
                    for _ in 0..<min(model.count, 1 + Int(generator.next() % 80)) {
                        let entry = queue.removeMin()
                        let expected = model.removeFirst()
                        #expect(
                            (entry.time.nanoseconds, entry.sequence, entry.work.id)
                                == (expected.time, expected.sequence, expected.id), "step \(step)")
                    }
                } else {
                    // Mostly one insert between reads (the heap's), sometimes a burst of up
                    // to 300 (merged with the sorted run when large enough against it).
                    let burst = generator.next() % 8 == 0 ? 1 + Int(generator.next() % 300) : 1
                    // In order: from a random time on, each no earlier than the one before.
                    var time = generator.next() % 50
                    for offset in 0..<burst {
                        if !burstsInOrder || offset > 0 {
                            time = burstsInOrder ? min(time + generator.next() % 2, 60) : generator.next() % 50
                        }
                        let id = step * 1_000 + offset
                        queue.insert(
                            .init(
                                time: SchedulerTime(uncheckedNanoseconds: time), sequence: sequence,
                                work: Token(id, alive)))
                        // After every entry of its time or earlier: its sequence is the latest.
                        var low = 0
                        var high = model.count
                        while low < high {
                            let middle = (low + high) / 2
                            if model[middle].time <= time { low = middle + 1 } else { high = middle }
                        }
                        let index = low
                        model.insert((time, sequence, id), at: index)
                        sequence += 1
                    }
                }
                #expect(queue.count == model.count)
                #expect(queue.earliestTime()?.nanoseconds == model.first?.time)
            }
            while queue.count > 0 {
                let entry = queue.removeMin()
                #expect(entry.work.id == model.removeFirst().id)
            }
        }
        #expect(alive.value == 0)
    }
}

/// A small deterministic generator (SplitMix64), so a failing seed replays.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
