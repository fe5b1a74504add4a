// Thread-to-core pinning for the conformance rules that need threads on distinct cores.
// Swift's Glibc module does not export the GNU affinity calls, hence this shim.
#ifndef CORE_AFFINITY_H
#define CORE_AFFINITY_H

/// Pins the calling thread to the `index`-th (modulo their number) of the cores the process
/// may run on. Returns 0 on success, -1 where that cannot be done (not Linux, or refused).
int core_affinity_pin_current_thread(int index);

#endif
