// The Linux scheduling calls the conformance rules need and Swift's Glibc module does not
// export (they are GNU extensions): thread-to-core pinning for rules that need threads on
// distinct cores, a thread's own count of preemptions for rules that judge by evidence, and
// the allocator's count of bytes in use for rules that judge what a thread leaves behind, and
// a sample of another thread's stack for naming the call a hung thread is stuck in.
#ifndef CORE_AFFINITY_H
#define CORE_AFFINITY_H

/// Pins the calling thread to the `index`-th (modulo their number) of the cores the process
/// may run on. Returns 0 on success, -1 where that cannot be done (not Linux, or refused).
int core_affinity_pin_current_thread(int index);

/// The core the calling thread runs on now, or -1 where unknown.
int core_affinity_current_core(void);

/// Lets the calling thread run on every core it may run on now but `core` (so two threads
/// that must run at once are not left sharing one). Returns 0 on success, -1 where that cannot
/// be done (not Linux, `core` not allowed, or the only one).
int core_affinity_move_current_thread_off(int core);

/// Lets the calling thread run on every core the process may run on. Returns 0 or -1.
int core_affinity_unpin_current_thread(void);

/// The calling thread's count of context switches, involuntary (the kernel took its core away
/// while it could still run) and voluntary (it blocked: a lock, a page fault), or -1 where the
/// platform does not count them per thread.
long core_affinity_context_switches(void);

/// Reads the monotonic clock and, right after it, the calling thread's processor time, both in
/// nanoseconds. Between two reads on one thread that kept its core, the two grow alike; the
/// monotonic clock running ahead is time the thread was not on its core although the kernel
/// switched nothing: the host of a virtual machine took the core (the guest counts that as
/// steal and leaves it out of the thread's time). Returns 0, or -1 where that cannot be read.
int core_affinity_thread_clocks(long long *monotonic, long long *running);

/// Writes into `counts[core]` how many interrupts each core has taken since boot (every row
/// of `/proc/interrupts`: timer, rescheduling, function calls, devices), and returns one more
/// than the highest core numbered, or -1 where they cannot be read (not Linux, or more cores
/// than `capacity`). On a virtual machine an interrupt stops its core's thread for 20 to
/// 100 µs, and the thread's own counts show nothing of it.
int core_affinity_interrupts(long long *counts, int capacity);

/// The nanoseconds the calling thread has spent ready to run but waiting for a core, over its
/// life (the kernel's schedstat), or -1 where the platform does not count them.
long long core_affinity_run_delay(void);

/// The same count for thread `thread` of this process, read from any thread, or -1 where it
/// cannot be read (not Linux, or the thread is gone).
long long core_affinity_thread_run_delay(long thread);

/// Writes the nanoseconds thread `thread` of this process has spent on a core (`running`) and
/// ready to run but waiting for one (`waiting`) over its life (the kernel's schedstat; their sum
/// grows at the clock's rate for a busy thread, loaded machine or not, and not at all for a
/// blocked one). Returns 0, or -1 where they cannot be read (not Linux, or the thread is gone).
int core_affinity_thread_times(long thread, long long *running, long long *waiting);

/// 1 when more threads are ready to run, machine-wide (the kernel's count in /proc/loadavg),
/// than this process has cores to run on with one thread to spare (the caller's own, which is
/// ready while it asks), 0 when not, -1 where it cannot be read.
int core_affinity_cores_oversubscribed(void);

/// Sleeps `nanoseconds` with the calling thread's timer slack at 1 ns for the sleep (the
/// default lets the kernel wake it up to 50 µs late), and as it was after.
void core_affinity_nap(long nanoseconds);

/// Writes the kernel IDs of this process's threads into `ids`, at most `capacity` of them, and
/// returns how many threads there are (more than `capacity` when some did not fit), or -1
/// where they cannot be listed.
int core_affinity_thread_ids(long *ids, int capacity);

/// The calling thread's kernel thread ID (never shared by two live threads, and reused far
/// less readily than a pthread_t), or -1 where there is none.
long core_affinity_thread_id(void);

/// Names the calling thread for the kernel (its first 15 bytes), as `/proc` and gdb show it.
/// Returns 0, or -1 where that cannot be done.
int core_affinity_name_current_thread(const char *name);

/// The bytes the C allocator has handed out and not had back, over every arena, or -1 where
/// it does not say (not glibc 2.33 or later). A sanitizer's allocator is not glibc's: there
/// the count does not move, which a caller must check before trusting it.
long core_affinity_heap_bytes_in_use(void);

/// Spins `steps` iterations of a loop the optimiser keeps (about a cycle each): a pause
/// finer than a clock read, for sweeping one call across another's first nanoseconds.
void core_affinity_busy_steps(long steps);

/// Lets the calling thread's stack be sampled by `core_affinity_sample_stack`: unblocks the
/// signal it uses, which a thread started from a Dispatch worker inherits blocked. Returns 0,
/// or -1 where sampling is not supported.
int core_affinity_allow_stack_sampling(void);

/// Records the return addresses on kernel thread `thread`'s stack (of this process) into
/// `frames`, innermost first, by having the thread take a signal whose handler walks its own
/// stack: what a hang's diagnosis uses where it may not stop the process to attach a
/// debugger. Returns the number of frames, or -1 when the thread did not answer within
/// `timeout_ms` (it did not allow sampling, or a sanitizer held the signal back) or this
/// cannot be done here.
int core_affinity_sample_stack(long thread, void **frames, int capacity, int timeout_ms);

/// Writes the (mangled) name of the function containing `address` into `name`, from the
/// dynamic symbols or, for the main program, its own symbol table. Returns 1 when found.
int core_affinity_symbol_name(const void *address, char *name, long capacity);

/// Calls `body(context)`: a named, never inlined region for a profiler to count between
/// (callgrind's `--zero-before` and `--dump-after`), so start-up and tear-down stay out of
/// the count.
void core_affinity_measured_region(void (*body)(void *), void *context);

#endif
