/* Engine allocation with failure injection for tests. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fk.h"

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
	return malloc(n ? n : 1);
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
		return calloc(n, size);
	if ((p = malloc(n * size)) != NULL)
		zero_fill(p, 0, n * size);
	return p;
}

void *fk_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
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
