/* Engine allocation with failure injection for tests. */
#include <stdlib.h>
#include <string.h>

#include "fk.h"

static long fail_after = -1;

void fk_alloc_fail_after(long n) { fail_after = n; }

static bool should_fail(void)
{
	if (fail_after < 0)
		return false;
	if (fail_after == 0)
		return true;
	fail_after--;
	return false;
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
