/*
 * Weights other than the sample period.
 *
 *   --weight-field NAME   each kept record weighs the number in its
 *                         tracepoint field NAME (bytes_alloc of
 *                         kmem:kmalloc, len of syscalls:sys_enter_mmap),
 *                         so a memory or I/O graph shows bytes, not calls.
 *   --series-by-event A,B two events of one capture are the two series of
 *                         one profile (weight[0] from A, weight[1] from B),
 *                         which folded output writes as two columns and the
 *                         svg output draws as a differential.
 *
 * The field is read by fields.c, as every tracepoint field is.  A record
 * whose field is missing or not a number is skipped and counted (scan.c),
 * never given a guessed weight.
 */
#include <stdio.h>

#include "internal.h"

int perf_series_parse(const char *spec, struct kept_event ev[2])
{
	const char *comma = spec ? strchr(spec, ',') : NULL;
	size_t la, lb;

	if (!comma || strchr(comma + 1, ','))
		return FK_ERR_USAGE;
	la = (size_t)(comma - spec);
	lb = strlen(comma + 1);
	if (la == 0 || lb == 0 || la >= sizeof ev[0].name || lb >= sizeof ev[1].name)
		return FK_ERR_USAGE;
	memset(ev, 0, 2 * sizeof *ev);
	memcpy(ev[0].name, spec, la);
	ev[0].len = la;
	memcpy(ev[1].name, comma + 1, lb);
	ev[1].len = lb;
	if (la == lb && memcmp(ev[0].name, ev[1].name, la) == 0)
		return FK_ERR_USAGE;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < ev[k].len; i++)
			if (is_ws((unsigned char)ev[k].name[i]))
				return FK_ERR_USAGE;
	return 0;
}

/* Fields that count bytes, so that the unit says "bytes" (pprof's space
 * type), not a field name. */
const char *perf_weight_unit(const char *field)
{
	static const char *const bytes[] = { "bytes", "bytes_alloc", "bytes_req", "len", "size",
	                                     "bytes_written", "bytes_read" };

	for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++)
		if (strcmp(field, bytes[i]) == 0)
			return "bytes";
	if (strcmp(field, "nr_sector") == 0)
		return "sectors";
	return field;
}

int fk_perf_check(const struct fk_host *h, const void *opts, const char *where)
{
	const struct fk_perf_opts *o = opts;
	struct kept_event ev[2];
	(void)where;

	if (!o)
		return 0;
	/* here, not when parsing starts: perf-data would have run perf */
	if (o->leak && (o->offcpu || o->wakeups)) {
		h->log(FK_LOG_ERROR, "--leak cannot be combined with --offcpu or --wakeups: "
		       "collapse the capture once for each");
		return FK_ERR_USAGE;
	}
	if (o->series_by_event) {
		if (perf_series_parse(o->series_by_event, ev) < 0) {
			h->log(FK_LOG_ERROR, "--series-by-event takes two different event names "
			       "separated by a comma (cycles,instructions), not \"%s\"", o->series_by_event);
			return FK_ERR_USAGE;
		}
		if (o->event_filter && o->event_filter[0]) {
			h->log(FK_LOG_ERROR, "--series-by-event already names the events to keep; "
			       "drop --event-filter");
			return FK_ERR_USAGE;
		}
	}
	if (o->weight_field && !o->weight_field[0]) {
		h->log(FK_LOG_ERROR, "--weight-field needs a field name (bytes_alloc, len, ...)");
		return FK_ERR_USAGE;
	}
	if (perf_pairing(o) && (o->series_by_event || o->weight_field)) {
		h->log(FK_LOG_ERROR, "--%s weighs records by %s; it cannot be used with --%s",
		       o->leak ? "leak" : o->wakeups ? "wakeups" : "offcpu",
		       o->leak ? "the bytes never freed" : "blocked time",
		       o->series_by_event ? "series-by-event" : "weight-field");
		return FK_ERR_USAGE;
	}
	return 0;
}

void perf_weights_report(const struct fk_host *h, struct fk_input *in, const struct fk_perf_opts *o,
                         uint64_t missing, uint64_t bad)
{
	uint64_t n = missing + bad;

	if (n == 0)
		return;
	h->log(FK_LOG_WARN, "%s: --weight-field %s: skipped %llu kept record%s: %llu without the "
	       "field, %llu whose value is not a number", h->input_name(in), o->weight_field,
	       (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)missing,
	       (unsigned long long)bad);
}
