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
 * perf script prints a tracepoint's fields after its event name in one of
 * two forms, by the tracepoint's print format: "bytes_alloc=4096" (most
 * tracepoints) or "len: 0x00002000," (the syscalls); numbers in decimal or
 * in hex with 0x.  The block events print theirs by position
 * (block_field).  A record whose field is missing or not a number is
 * skipped and counted (scan.c), never given a guessed weight.
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

/* A non-negative integer, decimal or 0x hex, filling v[0..n) exactly. */
static bool field_number(const char *v, size_t n, double *out)
{
	uint64_t x = 0;
	size_t i = 0;

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		if (n - 2 > 16)
			return false;
		for (i = 2; i < n; i++) {
			unsigned char c = (unsigned char)v[i];
			unsigned d = 16;
			if (is_digit(c))
				d = (unsigned)(c - '0');
			else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
				d = (unsigned)((c | 0x20) - 'a' + 10);
			if (d > 15)
				return false;
			x = x << 4 | d;
		}
	} else {
		if (n == 0 || n > 19)
			return false;
		for (i = 0; i < n; i++) {
			if (!is_digit((unsigned char)v[i]))
				return false;
			x = x * 10 + (uint64_t)(v[i] - '0');
		}
	}
	*out = (double)x;
	return true;
}

/*
 * The block layer's tracepoints print their fields by position, not by name:
 *   block_rq_issue:  254,0 W 4096 () 20377144 + 8 0x2,0,4 [dd]
 *   block_bio_queue: 254,0 RA 12654536 + 8 [dd]
 * nr_sector is the number after the "+", and bytes (block_rq_issue,
 * _insert) the third token when the fourth is the command in parentheses.
 * Other names are missing: the rest are positions and flags, not weights.
 */
static int block_field(const char *a, size_t n, const char *name, size_t nlen, double *w)
{
	const char *t[8], *end = a + n;
	size_t tl[8], k = 0;

	for (const char *p = a; p < end && k < 8;) {
		while (p < end && is_ws((unsigned char)*p))
			p++;
		if (p == end)
			break;
		t[k] = p;
		while (p < end && !is_ws((unsigned char)*p))
			p++;
		tl[k] = (size_t)(p - t[k]);
		k++;
	}
	if (nlen == 5 && memcmp(name, "bytes", 5) == 0)
		return k >= 4 && t[3][0] == '(' ? (field_number(t[2], tl[2], w) ? WF_OK : WF_BAD)
		                                 : WF_MISSING;
	if (nlen != 9 || memcmp(name, "nr_sector", 9) != 0)
		return WF_MISSING;
	for (size_t i = 1; i + 1 < k; i++)
		if (tl[i] == 1 && t[i][0] == '+')
			return field_number(t[i + 1], tl[i + 1], w) ? WF_OK : WF_BAD;
	return WF_MISSING;
}

int perf_field_weight(const char *ev, size_t evlen, const char *a, size_t n, const char *name,
                      size_t nlen, double *w)
{
	const char *p = a, *end;

	if (!a || nlen == 0)
		return WF_MISSING;
	end = a + n;
	if (ev && evlen > 6 && memcmp(ev, "block:", 6) == 0)
		return block_field(a, n, name, nlen, w);
	while ((p = perf_memmem(p, (size_t)(end - p), name, nlen)) != NULL) {
		const char *q = p + nlen, *v;
		/* the name must be a whole field name: at the start of a token */
		if ((p == a || is_ws((unsigned char)p[-1])) && q < end && (*q == '=' || *q == ':')) {
			q++;
			while (q < end && *q == ' ')
				q++;
			v = q;
			while (q < end && !is_ws((unsigned char)*q) && *q != ',')
				q++;
			return field_number(v, (size_t)(q - v), w) ? WF_OK : WF_BAD;
		}
		p += nlen;
	}
	return WF_MISSING;
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
