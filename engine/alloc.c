/* Engine allocation with failure injection for tests, and the heap on
 * transparent huge pages (fk_heap_tune). */
#define _GNU_SOURCE /* sbrk, MADV_HUGEPAGE */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fk.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(MADV_HUGEPAGE) && defined(M_ARENA_MAX)
#define HEAP_TUNE 1
#endif
#endif

/*
 * Memory on huge pages.  A run touches tens of MB of fresh memory (hash
 * tables, node arrays, read buffers), and the first touch of each 4 KiB
 * page is a fault.  On a virtual machine a fault is dear: here 64 MiB
 * touched page by page took 210 ms, on 2 MiB pages 4 ms, and the 3,400
 * faults of a 218 MB perf collapse were a third of its time.
 * fk_heap_tune() (the flamekit program calls it first thing; a library
 * user need not) asks for transparent huge pages (MADV_HUGEPAGE, which the
 * kernel's default THP mode "madvise" honours; where THP is off the advice
 * is ignored and nothing else changes):
 *   - blocks of BIG bytes or more are mapped 2 MiB-aligned and advised
 *     whole (glibc still maps them and unmaps them when freed, so a freed
 *     table leaves RSS at once); growing one keeps glibc's mremap and
 *     advises the result again;
 *   - smaller ones come from glibc's main heap, one arena for every
 *     thread, grown 32 MiB at a time; each allocation that finds the heap
 *     grown advises the new part.
 */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define BIG ((size_t)4 << 20)
#ifdef HEAP_TUNE
static atomic_bool tuned;
static atomic_uintptr_t advised; /* the heap below this is advised */
static uintptr_t page_mask;      /* ~(page size - 1), set before `tuned` */

void fk_heap_tune(void)
{
	void *p;

	if (atomic_load(&tuned))
		return;
	page_mask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, (int)BIG);
	mallopt(M_TOP_PAD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	p = malloc(1); /* the heap exists from here */
	atomic_store(&advised, (uintptr_t)p & page_mask);
	free(p);
	atomic_store(&tuned, true);
}

static inline bool is_tuned(void) { return atomic_load_explicit(&tuned, memory_order_relaxed); }

/* After a successful allocation from the heap: advise what it grew by.  A
 * heap trimmed below what was advised loses the advice with the pages, so
 * the mark comes down with it and what grows back is advised again. */
static void *heap_hint(void *p)
{
	uintptr_t top, done;

	if (!p || !is_tuned())
		return p;
	top = (uintptr_t)sbrk(0) & page_mask;
	done = atomic_load_explicit(&advised, memory_order_relaxed);
	if (top < done)
		atomic_compare_exchange_strong(&advised, &done, top);
	else if (top > done && atomic_compare_exchange_strong(&advised, &done, top))
		madvise((void *)done, (size_t)(top - done), MADV_HUGEPAGE);
	return p;
}

/* A block of n >= BIG bytes on huge pages, or NULL. */
static void *big_alloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, HUGE_PAGE, n) != 0)
		return NULL;
	madvise(p, n, MADV_HUGEPAGE);
	return p;
}

/* Growing a block keeps glibc's realloc, which moves a mapped block's
 * pages (mremap) instead of copying them; the result is advised again,
 * from its first 2 MiB boundary. */
static void *big_realloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	uintptr_t a = ((uintptr_t)q + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), e = (uintptr_t)q + n;

	if (q && e > a)
		madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
	return q;
}
#else
void fk_heap_tune(void) {}
static inline bool is_tuned(void) { return false; }
static inline void *heap_hint(void *p) { return p; }
static inline void *big_alloc(size_t n) { return malloc(n); }
static inline void *big_realloc(void *p, size_t n) { return realloc(p, n); }
#endif

/* n bytes (n > 0), from where fk_heap_tune's rules put them. */
static void *raw_alloc(size_t n)
{
	return n >= BIG && is_tuned() ? big_alloc(n) : heap_hint(malloc(n));
}

/* Both counters are atomic: parsing threads and plugins allocate through
 * here at the same time, and an injected failure must hit exactly one
 * point of the sequence, then every allocation after it. */
static atomic_long fail_after = -1;
static atomic_ulong calls;

void fk_alloc_fail_after(long n) { atomic_store(&fail_after, n); }

unsigned long fk_alloc_calls(void) { return atomic_load(&calls); }

void (*fk_alloc_fail_hook)(void);

static bool should_fail(void)
{
	long n = atomic_load_explicit(&fail_after, memory_order_relaxed);

	atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	while (n > 0)
		if (atomic_compare_exchange_weak(&fail_after, &n, n - 1)) {
			if (n == 1 && fk_alloc_fail_hook)
				fk_alloc_fail_hook(); /* the next one fails */
			return false;
		}
	return n == 0;
}

void *fk_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return raw_alloc(n ? n : 1);
}

/* A block of a page or more may come fresh from the kernel (mmap, or the
 * heap's top), where calloc leaves the zeroing to it: a hash table's slots
 * are then read before they are written, each read maps the shared zero
 * page, and the write after it is a copy-on-write fault that flushes the
 * TLB of every other thread (an IPI per page: 10% of a 2-thread perf
 * collapse's CPU time went to smp_call_function_many_cond).  Writing the
 * zeros first faults each page in once, writable. */
#define CALLOC_WRITE_FROM ((size_t)4096)
/* Called through a volatile pointer: GCC turns malloc + memset(0) back
 * into calloc, which would undo the point. */
static void *(*volatile const zero_fill)(void *, int, size_t) = memset;

void *fk_calloc(size_t n, size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	n = n ? n : 1;
	size = size ? size : 1;
	if (n > SIZE_MAX / size)
		return NULL;
	if (n * size < CALLOC_WRITE_FROM)
		return heap_hint(calloc(n, size));
	if ((p = raw_alloc(n * size)) != NULL)
		zero_fill(p, 0, n * size);
	return p;
}

void *fk_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	if (n >= BIG && is_tuned())
		return big_realloc(p, n);
	return heap_hint(realloc(p, n ? n : 1));
}

void fk_free(void *p) { free(p); }

char *fk_strndup(const char *s, size_t n)
{
	char *d = fk_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *fk_strdup(const char *s) { return fk_strndup(s, strlen(s)); }
