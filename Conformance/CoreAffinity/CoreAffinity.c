#define _GNU_SOURCE
#include "CoreAffinity.h"

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

long core_affinity_context_switches(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return -1;
    return usage.ru_nivcsw + usage.ru_nvcsw;
}

long core_affinity_thread_id(void) {
    return (long)syscall(SYS_gettid);
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
#else
long core_affinity_context_switches(void) { return -1; }

long core_affinity_thread_id(void) { return -1; }

int core_affinity_pin_current_thread(int index) {
    (void)index;
    return -1;
}
#endif
