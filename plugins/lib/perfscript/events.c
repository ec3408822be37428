/*
 * The events of the records a session drops, counted per event name, so
 * that the warnings can say what a capture holds: which event was dropped
 * first, and, when --event-filter names an event the capture does not
 * have, the events it does have and how many records of each.
 *
 * Each segment counts its own in a small table, in the order the events
 * first appear; perf_events_join adds them up in input order.  The table
 * holds EV_MAX names: past that a segment only counts records (`more`),
 * and the run marks itself overflowed.  The names kept are then still the
 * input's first EV_MAX events in order whatever the cut (a segment that
 * overflows has filled a table, so the run's is full by then too), but
 * their counts would depend on the cut, so the warning gives names only.
 */
#include <stdio.h>

#include "internal.h"

void perf_events_note(struct ev_counts *c, const char *ev, size_t len)
{
	static const char none[] = "(no event name)";
	size_t i;

	if (!ev) {
		ev = none;
		len = sizeof none - 1;
	}
	if (len >= sizeof c->v[0].name)
		len = sizeof c->v[0].name - 1; /* as perf's own names go, never */
	if (c->last < c->n && c->v[c->last].len == len && memcmp(c->v[c->last].name, ev, len) == 0) {
		c->v[c->last].records++; /* the common case: the event of the record before */
		return;
	}
	for (i = 0; i < c->n; i++)
		if (c->v[i].len == len && memcmp(c->v[i].name, ev, len) == 0)
			break;
	if (i == c->n) {
		if (c->n == EV_MAX) {
			c->more++;
			c->overflow = true;
			return;
		}
		memcpy(c->v[i].name, ev, len);
		c->v[i].name[len] = '\0';
		c->v[i].len = len;
		c->v[i].records = 0;
		c->n++;
	}
	c->v[i].records++;
	c->last = i;
}

void perf_events_join(struct ev_counts *run, const struct ev_counts *seg)
{
	for (size_t k = 0; k < seg->n; k++) {
		const struct ev_count *e = &seg->v[k];
		size_t i;
		for (i = 0; i < run->n; i++)
			if (run->v[i].len == e->len && memcmp(run->v[i].name, e->name, e->len) == 0)
				break;
		if (i < run->n) {
			run->v[i].records += e->records;
		} else if (run->n < EV_MAX) {
			run->v[run->n++] = *e;
		} else {
			run->more += e->records;
			run->overflow = true;
		}
	}
	run->more += seg->more;
	run->overflow |= seg->overflow;
}

const char *perf_events_first(const struct ev_counts *c)
{
	return c->n ? c->v[0].name : NULL;
}

void perf_events_list(const struct ev_counts *c, char *buf, size_t size)
{
	size_t order[EV_MAX], n = c->n < EV_SHOWN ? c->n : EV_SHOWN, at = 0;
	int w;

	/* most records first, ties in the order they came */
	for (size_t i = 0; i < c->n; i++)
		order[i] = i;
	for (size_t i = 1; i < c->n && !c->overflow; i++)
		for (size_t j = i; j > 0 && c->v[order[j]].records > c->v[order[j - 1]].records; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++) {
		const struct ev_count *e = &c->v[order[i]];
		if (c->overflow)
			w = snprintf(buf + at, size - at, "%s\"%s\"", i ? ", " : "", e->name);
		else
			w = snprintf(buf + at, size - at, "%s\"%s\" (%llu record%s)", i ? ", " : "",
			             e->name, (unsigned long long)e->records, e->records == 1 ? "" : "s");
		if (w < 0)
			return;
		at += (size_t)w;
	}
	if (at >= size)
		return;
	if (c->overflow)
		snprintf(buf + at, size - at, ", ... (more than %d events)", EV_MAX);
	else if (c->n > n)
		snprintf(buf + at, size - at, " and %zu other event%s", c->n - n,
		         c->n - n == 1 ? "" : "s");
}
