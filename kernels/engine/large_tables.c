/* gpu-histogram: host memory for large tables and buffers (backend.h, gh_large_alloc). */
#include "backend.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t) 2 << 20)

/* memset called through a pointer the compiler cannot see through, so that it does not turn
 * gh_large_alloc and memset back into calloc (gh_large_zeroed). */
static void *(*volatile clear_bytes) (void *, int, size_t) = memset;

void *
gh_large_alloc (size_t bytes)
{
#ifdef MADV_HUGEPAGE
  void *p = NULL;
  if (bytes < HUGE_PAGE_BYTES)
    return malloc (bytes);
  if (posix_memalign (&p, HUGE_PAGE_BYTES, bytes) != 0)
    return NULL;
  madvise (p, bytes, MADV_HUGEPAGE); /* advice: without it the memory still works */
  return p;
#else
  return malloc (bytes);
#endif
}

void *
gh_large_unwritten (size_t n, size_t size)
{
  if (size != 0 && n > SIZE_MAX / size)
    return NULL;
  return gh_large_alloc (n * size);
}

void *
gh_large_zeroed (size_t n, size_t size)
{
  void *table = gh_large_unwritten (n, size);
  if (table)
    clear_bytes (table, 0, n * size);
  return table;
}
