import CoreAffinity
import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Another thread's stack, read without stopping the process: the thread takes a signal and
/// records its own return addresses. For a hang's diagnosis where no debugger may attach (a
/// test process runs other tests beside the rule).
package enum StackSample {
    /// The calling thread's kernel ID, once its stack may be sampled: what a thread that may
    /// get stuck in a subject records for the hang's diagnosis. Nil where there is no ID.
    package static var sampleableCurrentThreadID: Int32? {
        _ = core_affinity_allow_stack_sampling()
        return CorePinning.currentThreadID
    }

    /// The mangled names of the functions on kernel thread `id`'s stack, innermost first
    /// (an empty string where an address has no symbol); nil where the thread did not answer
    /// within `timeout` (gone, not made sampleable by ``sampleableCurrentThreadID``, or a
    /// sanitizer holding the signal back) or sampling is not supported here.
    package static func symbols(ofThread id: Int32, within timeout: Duration = .seconds(1)) -> [String]? {
        #if SCHEDULERS_TSAN
            // The sanitizer defers a signal to a thread blocked in a lock until it wakes:
            // every sample of a stuck thread would time out.
            return nil
        #else
            var frames = [UnsafeMutableRawPointer?](repeating: nil, count: 128)
            let milliseconds = Int32(clamping: timeout.components.seconds * 1_000 + 1)
            let count = core_affinity_sample_stack(Int(id), &frames, Int32(frames.count), milliseconds)
            guard count > 0 else { return nil }
            var name = [CChar](repeating: 0, count: 4_096)
            return frames.prefix(Int(count)).map { address in
                guard let address, core_affinity_symbol_name(address, &name, name.count) == 1 else { return "" }
                return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
        #endif
    }
}
