import Synchronization

/// Lets one drive of a virtual-time scheduler run at a time. A drive from another thread
/// waits for the one under way, so two drives never mix their work; a drive from inside it
/// (an action that advances) goes straight through, since waiting for the drive that runs
/// it would never end.
package final class DriveGate: Sendable {
    private let gate = Lock(())
    /// The thread that holds `gate` (the address of its `ThreadState`), or 0.
    private let holder = Atomic<UInt>(0)

    /// A gate no drive holds.
    package init() {}

    /// Runs `drive` as the only drive under way and returns what it returns.
    package func drive<Result: Sendable, Failure: Error>(_ drive: () throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        let me = UInt(bitPattern: ObjectIdentifier(ThreadState.local))
        // Only this thread ever stores its own identity, so seeing it means this thread's
        // drive is still under way; another thread's, or 0, means waiting for the gate.
        if holder.load(ordering: .relaxed) == me { return try drive() }
        return try gate.withLock { _ throws(Failure) -> Result in
            holder.store(me, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return try drive()
        }
    }
}
