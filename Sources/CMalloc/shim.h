#ifndef PUSH_CMALLOC_SHIM_H
#define PUSH_CMALLOC_SHIM_H
/* glibc's allocator tuning (mallopt), which Swift's Glibc module does not export; used by PushProcess's
   ProcessMemory. Part of the C library itself: nothing to link. */
#include <malloc.h>

static inline int push_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
#endif
