#define _GNU_SOURCE
#include "CoreAffinity.h"

#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long core_affinity_context_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return -1;
    return usage.ru_nivcsw + usage.ru_nvcsw;
}

int core_affinity_thread_clocks(long long *monotonic, long long *running) {
    struct timespec wall, cpu;
    if (clock_gettime(CLOCK_MONOTONIC, &wall) != 0) return -1;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) != 0) return -1;
    *monotonic = (long long)wall.tv_sec * 1000000000LL + wall.tv_nsec;
    *running = (long long)cpu.tv_sec * 1000000000LL + cpu.tv_nsec;
    return 0;
}

static int interrupts_in(char *text, long long *counts, int capacity);

int core_affinity_interrupts(long long *counts, int capacity) {
    int fd = open("/proc/interrupts", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    enum { size = 1 << 16 };
    char *text = malloc(size);
    if (text == NULL) {
        close(fd);
        return -1;
    }
    size_t length = 0;
    ssize_t got;
    while (length < size - 1 && (got = read(fd, text + length, size - 1 - length)) > 0) length += got;
    close(fd);
    text[length] = '\0';
    int cores = interrupts_in(text, counts, capacity);
    free(text);
    return cores;
}

static int interrupts_in(char *text, long long *counts, int capacity) {
    // The header names the columns ("CPU0 CPU1 ..."); each row after it gives a count per
    // column, then a description. Rows with fewer counts (ERR, MIS: one total) are skipped.
    int columns[1024];
    int count = 0, highest = -1;
    char *line = text, *end = strchr(line, '\n');
    if (end == NULL) return -1;
    for (char *cursor = line; cursor < end && count < 1024;) {
        char *found = strstr(cursor, "CPU");
        if (found == NULL || found >= end) break;
        columns[count] = (int)strtol(found + 3, &cursor, 10);
        if (columns[count] > highest) highest = columns[count];
        count++;
    }
    if (count == 0 || highest >= capacity) return -1;
    for (int index = 0; index <= highest; index++) counts[index] = 0;
    for (line = end + 1; *line != '\0'; line = end + 1) {
        end = strchr(line, '\n');
        if (end == NULL) end = line + strlen(line);
        char *cursor = strchr(line, ':');
        if (cursor != NULL && cursor < end) {
            long long row[1024];
            int taken = 0;
            cursor++;
            while (taken < count) {
                char *after;
                long long value = strtoll(cursor, &after, 10);
                if (after == cursor || after > end) break;
                row[taken++] = value;
                cursor = after;
            }
            if (taken == count)
                for (int index = 0; index < count; index++) counts[columns[index]] += row[index];
        }
        if (*end == '\0') break;
    }
    return highest + 1;
}

// Reads the start of a small /proc file into `text` as a C string, without the allocations
// of stdio. Returns 0, or -1 where it cannot be read.
static int read_proc_text(const char *path, char *text, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t length = read(fd, text, capacity - 1);
    close(fd);
    if (length <= 0) return -1;
    text[length] = '\0';
    return 0;
}

// The first two of schedstat's three counts: nanoseconds on a core, and runnable, waiting
// for one. Returns 0, or -1 where they cannot be read.
static int schedstat_at(const char *path, unsigned long long *running, unsigned long long *waiting) {
    char text[96];
    if (read_proc_text(path, text, sizeof text) != 0) return -1;
    return sscanf(text, "%llu %llu", running, waiting) == 2 ? 0 : -1;
}

static long long run_delay_at(const char *path) {
    unsigned long long running = 0, waiting = 0;
    return schedstat_at(path, &running, &waiting) == 0 ? (long long)waiting : -1;
}

int core_affinity_thread_times(long thread, long long *running, long long *waiting) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", thread);
    unsigned long long on_core = 0, ready = 0;
    if (schedstat_at(path, &on_core, &ready) != 0) return -1;
    *running = (long long)on_core;
    *waiting = (long long)ready;
    return 0;
}

long long core_affinity_run_delay(void) {
    return run_delay_at("/proc/thread-self/schedstat");
}

long long core_affinity_thread_run_delay(long thread) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", thread);
    return run_delay_at(path);
}

int core_affinity_thread_ids(long *ids, int capacity) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        if (count < capacity) ids[count] = strtol(entry->d_name, NULL, 10);
        count++;
    }
    closedir(tasks);
    return count;
}

long core_affinity_thread_id(void) {
    return (long)syscall(SYS_gettid);
}

int core_affinity_name_current_thread(const char *name) {
    // The kernel keeps 15 bytes and refuses a longer name outright.
    char kept[16];
    strncpy(kept, name, sizeof kept - 1);
    kept[sizeof kept - 1] = '\0';
    return pthread_setname_np(pthread_self(), kept) == 0 ? 0 : -1;
}

int core_affinity_pin_current_thread(int index) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    int count = CPU_COUNT(&allowed);
    if (count <= 0 || index < 0) return -1;
    int wanted = index % count;
    for (int core = 0; core < CPU_SETSIZE; core++) {
        if (!CPU_ISSET(core, &allowed)) continue;
        if (wanted-- > 0) continue;
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(core, &only);
        return sched_setaffinity(0, sizeof only, &only);
    }
    return -1;
}
int core_affinity_current_core(void) {
    return sched_getcpu();
}

int core_affinity_move_current_thread_off(int core) {
    cpu_set_t allowed;
    if (core < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    if (!CPU_ISSET(core, &allowed) || CPU_COUNT(&allowed) < 2) return -1;
    CPU_CLR(core, &allowed);
    return sched_setaffinity(0, sizeof allowed, &allowed);
}

int core_affinity_unpin_current_thread(void) {
    cpu_set_t process;
    if (sched_getaffinity(getpid(), sizeof process, &process) != 0) return -1;
    return sched_setaffinity(0, sizeof process, &process);
}

int core_affinity_cores_oversubscribed(void) {
    char text[128];
    if (read_proc_text("/proc/loadavg", text, sizeof text) != 0) return -1;
    double one, five, fifteen;
    int runnable = 0, total = 0;
    if (sscanf(text, "%lf %lf %lf %d/%d", &one, &five, &fifteen, &runnable, &total) != 5) return -1;
    cpu_set_t usable;
    if (sched_getaffinity(0, sizeof usable, &usable) != 0) return -1;
    return runnable > CPU_COUNT(&usable) + 1 ? 1 : 0;
}

void core_affinity_nap(long nanoseconds) {
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack > 1) prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    struct timespec pause = {nanoseconds / 1000000000L, nanoseconds % 1000000000L};
    nanosleep(&pause, NULL);
    if (slack > 1) prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0);
}

#else
int core_affinity_current_core(void) { return -1; }

int core_affinity_move_current_thread_off(int core) {
    (void)core;
    return -1;
}

int core_affinity_unpin_current_thread(void) { return -1; }

long core_affinity_context_switches(void) { return -1; }

int core_affinity_thread_clocks(long long *monotonic, long long *running) {
    (void)monotonic;
    (void)running;
    return -1;
}

int core_affinity_interrupts(long long *counts, int capacity) {
    (void)counts;
    (void)capacity;
    return -1;
}

long long core_affinity_run_delay(void) { return -1; }

long long core_affinity_thread_run_delay(long thread) {
    (void)thread;
    return -1;
}

int core_affinity_thread_times(long thread, long long *running, long long *waiting) {
    (void)thread;
    (void)running;
    (void)waiting;
    return -1;
}

int core_affinity_thread_ids(long *ids, int capacity) {
    (void)ids;
    (void)capacity;
    return -1;
}

void core_affinity_nap(long nanoseconds) { usleep((useconds_t)(nanoseconds / 1000)); }

int core_affinity_cores_oversubscribed(void) { return -1; }

long core_affinity_thread_id(void) { return -1; }

int core_affinity_name_current_thread(const char *name) {
    (void)name;
    return -1;
}

int core_affinity_pin_current_thread(int index) {
    (void)index;
    return -1;
}
#endif

// glibc's mallinfo2 sums every arena (threads allocate from arenas of their own).
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#include <stdlib.h>

long core_affinity_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);
}
#else
long core_affinity_heap_bytes_in_use(void) { return -1; }
#endif

void core_affinity_busy_steps(long steps) {
    // An empty asm statement with a memory clobber: the compiler may neither drop the loop
    // nor merge its iterations, however little each does.
    for (long step = 0; step < steps; step++) __asm__ __volatile__("" ::: "memory");
}

void core_affinity_measured_region(void (*body)(void *), void *context) {
    // Kept out of line by being C in a module of its own: a profiler's name to count between.
    body(context);
}
