/* Helpers shared by the pprof plugins; see fk_pprof.h. */
#include <string.h>

#include "fk_pprof.h"

static void *pb_alloc(void *data, size_t size)
{
	struct fk_pprof_alloc *a = data;
	void *p = a->h->alloc(size ? size : 1);

	if (!p)
		a->failed = 1;
	return p;
}

static void pb_free(void *data, void *ptr)
{
	struct fk_pprof_alloc *a = data;
	a->h->free(ptr);
}

void fk_pprof_allocator(struct fk_pprof_alloc *a, const struct fk_host *h)
{
	a->pa.alloc = pb_alloc;
	a->pa.free = pb_free;
	a->pa.allocator_data = a;
	a->h = h;
	a->failed = 0;
}

static const struct {
	const char *pprof, *fk;
} time_units[] = {
	{ "nanoseconds", "ns" },
	{ "microseconds", "us" },
	{ "milliseconds", "ms" },
	{ "seconds", "s" },
};

const char *fk_pprof_unit_in(const char *type, const char *unit)
{
	for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
		if (strcmp(unit, time_units[i].pprof) == 0)
			return time_units[i].fk;
	if (strcmp(unit, "count") == 0 && strcmp(type, "samples") == 0)
		return "samples";
	return unit;
}

void fk_pprof_unit_out(const char *unit, const char **type, const char **punit)
{
	*type = "samples";
	*punit = "count";
	if (!unit || strcmp(unit, "samples") == 0)
		return;
	if (strcmp(unit, "ns") == 0) {
		*type = "cpu";
		*punit = "nanoseconds";
	} else if (strcmp(unit, "us") == 0) {
		/* perf --offcpu and offcputime weigh blocked time in microseconds */
		*type = "offcpu";
		*punit = "microseconds";
	} else if (strcmp(unit, "ms") == 0) {
		*type = "cpu";
		*punit = "milliseconds";
	} else if (strcmp(unit, "s") == 0) {
		*type = "cpu";
		*punit = "seconds";
	} else if (strcmp(unit, "bytes") == 0) {
		*type = "space";
		*punit = "bytes";
	} else {
		/* events, cycles, count, ...: a count of that thing */
		*type = unit;
	}
}
