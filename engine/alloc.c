/* Engine allocation with failure injection for tests. */
#include <stdatomic.h>
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

void *fk_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
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
