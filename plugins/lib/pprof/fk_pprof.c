/* Helpers shared by the pprof plugins; see fk_pprof.h. */
#include <string.h>

#include "fk_pprof.h"

static void *pb_alloc(void *data, size_t size)
{
	const struct fk_host *h = data;
	return h->alloc(size ? size : 1);
}

static void pb_free(void *data, void *ptr)
{
	const struct fk_host *h = data;
	h->free(ptr);
}

void fk_pprof_allocator(ProtobufCAllocator *a, const struct fk_host *h)
{
	a->alloc = pb_alloc;
	a->free = pb_free;
	a->allocator_data = (void *)h;
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
