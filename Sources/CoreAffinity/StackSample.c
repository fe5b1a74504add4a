#define _GNU_SOURCE
#include "CoreAffinity.h"

#ifdef __linux__
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// One request at a time: the requester names the thread in `sample_target`, signals it, and
// its handler records its own stack and posts `sample_done`. The handler claims the request
// (target -> -target) before writing, so a requester that gave up can tell a handler that
// will never write from one writing now.
enum { sample_capacity = 128 };
static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t sample_once = PTHREAD_ONCE_INIT;
static sem_t sample_done;
static void *sample_frames[sample_capacity];
static int sample_count;
static atomic_long sample_target;
// Set when a handler claimed a request and never finished it: the buffer may still be
// written, so no further request is made.
static int sample_broken;
static int sample_ready;

static int sample_signal(void) { return SIGRTMIN + 6; }

static void sample_handler(int signal, siginfo_t *info, void *context) {
    (void)signal;
    (void)info;
    (void)context;
    int saved = errno;
    long self = (long)syscall(SYS_gettid);
    long expected = self;
    if (atomic_compare_exchange_strong(&sample_target, &expected, -self)) {
        sample_count = backtrace(sample_frames, sample_capacity);
        atomic_store(&sample_target, 0);
        sem_post(&sample_done);
    }
    errno = saved;
}

static void sample_install(void) {
    if (sem_init(&sample_done, 0, 0) != 0) return;
    // The first backtrace loads the unwinder (and allocates): done here, never in a handler.
    void *warm[4];
    (void)backtrace(warm, 4);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = sample_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(sample_signal(), &action, NULL) != 0) return;
    sample_ready = 1;
}

int core_affinity_allow_stack_sampling(void) {
    // Once per thread: a probe's queue asks before every job it runs.
    static __thread int allowed;
    if (allowed) return 0;
    pthread_once(&sample_once, sample_install);
    if (!sample_ready) return -1;
    allowed = 1;
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sample_signal());
    return pthread_sigmask(SIG_UNBLOCK, &only, NULL) == 0 ? 0 : -1;
}

/// Waits for the handler's post until `deadline`; 1 when it came.
static int sample_wait(const struct timespec *deadline) {
    for (;;) {
        if (sem_timedwait(&sample_done, deadline) == 0) return 1;
        if (errno != EINTR) return 0;
    }
}

int core_affinity_sample_stack(long thread, void **frames, int capacity, int timeout_ms) {
    if (thread <= 0 || capacity <= 0) return -1;
    pthread_once(&sample_once, sample_install);
    if (!sample_ready) return -1;
    pthread_mutex_lock(&sample_lock);
    int count = -1;
    if (sample_broken) goto done;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    atomic_store(&sample_target, thread);
    if (syscall(SYS_tgkill, getpid(), (pid_t)thread, sample_signal()) != 0) {
        atomic_store(&sample_target, 0);
        goto done;
    }
    if (!sample_wait(&deadline)) {
        long expected = thread;
        // Unclaimed: withdrawn, and a late handler will find nothing to do.
        if (atomic_compare_exchange_strong(&sample_target, &expected, 0)) goto done;
        // Claimed: the handler is writing; give it as long again.
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 1 + timeout_ms / 1000;
        if (!sample_wait(&deadline)) {
            sample_broken = 1;
            goto done;
        }
    }
    count = sample_count < capacity ? sample_count : capacity;
    memcpy(frames, sample_frames, (size_t)count * sizeof(void *));
done:
    pthread_mutex_unlock(&sample_lock);
    return count;
}

// The main program's symbol table, read once from /proc/self/exe: its functions are not in the
// dynamic table dladdr reads, unless it was linked to export them.
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static const Elf64_Sym *table_symbols;
static size_t table_count;
static const char *table_names;
static size_t table_names_size;
static uintptr_t table_bias;
static int table_relocatable;

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
    return 1;
}

static void table_load(void) {
    dl_iterate_phdr(first_object, &table_bias);
    int file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (file < 0) return;
    struct stat status;
    if (fstat(file, &status) != 0 || (size_t)status.st_size < sizeof(Elf64_Ehdr)) {
        close(file);
        return;
    }
    const unsigned char *image = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, file, 0);
    close(file);
    if (image == MAP_FAILED) return;
    size_t size = (size_t)status.st_size;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)image;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64) return;
    if (header->e_shoff == 0 || header->e_shoff + (size_t)header->e_shnum * sizeof(Elf64_Shdr) > size) return;
    table_relocatable = header->e_type == ET_DYN;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(image + header->e_shoff);
    for (int index = 0; index < header->e_shnum; index++) {
        const Elf64_Shdr *section = &sections[index];
        if (section->sh_type != SHT_SYMTAB || section->sh_link >= header->e_shnum) continue;
        const Elf64_Shdr *strings = &sections[section->sh_link];
        if (section->sh_offset + section->sh_size > size || strings->sh_offset + strings->sh_size > size) return;
        table_symbols = (const Elf64_Sym *)(image + section->sh_offset);
        table_count = section->sh_size / sizeof(Elf64_Sym);
        table_names = (const char *)(image + strings->sh_offset);
        table_names_size = strings->sh_size;
        return;
    }
}

/// Whether `address` lies in one of the main program's loaded segments.
static int in_main_program(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t address = *(uintptr_t *)data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + segment->p_vaddr;
        if (address >= start && address < start + segment->p_memsz) return 2;
    }
    return 1;  // the first object only: the main program
}

static const char *table_lookup(uintptr_t address) {
    pthread_once(&table_once, table_load);
    if (!table_symbols) return NULL;
    uintptr_t probe = address;
    if (dl_iterate_phdr(in_main_program, &probe) != 2) return NULL;
    uintptr_t offset = table_relocatable ? address - table_bias : address;
    for (size_t index = 0; index < table_count; index++) {
        const Elf64_Sym *symbol = &table_symbols[index];
        if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_name >= table_names_size) continue;
        if (offset >= symbol->st_value && offset < symbol->st_value + symbol->st_size) {
            return table_names + symbol->st_name;
        }
    }
    return NULL;
}

int core_affinity_symbol_name(const void *address, char *name, long capacity) {
    if (capacity <= 0) return 0;
    const char *found = NULL;
    Dl_info info;
    if (dladdr(address, &info) != 0 && info.dli_sname) found = info.dli_sname;
    if (!found) found = table_lookup((uintptr_t)address);
    if (!found) return 0;
    strncpy(name, found, (size_t)capacity - 1);
    name[capacity - 1] = '\0';
    return 1;
}
#else
int core_affinity_allow_stack_sampling(void) { return -1; }
int core_affinity_sample_stack(long thread, void **frames, int capacity, int timeout_ms) { return -1; }
int core_affinity_symbol_name(const void *address, char *name, long capacity) { return 0; }
#endif
