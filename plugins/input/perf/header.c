/*
 * perf script header lines: "comm pid/tid [cpu] time: period event:" in
 * the many layouts perf prints (fields come and go with the record
 * options), tracepoint headers whose event is followed by its arguments,
 * and the header of a thread perf can no longer name (":-1    -1 [000]
 * ...", pid -1).
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define WS PERF_WS
#define DG PERF_DIGIT
const unsigned char perf_cls[256] = {
	['\t'] = WS, ['\n'] = WS, ['\v'] = WS, ['\f'] = WS, ['\r'] = WS, [' '] = WS,
	['0'] = DG, ['1'] = DG, ['2'] = DG, ['3'] = DG, ['4'] = DG,
	['5'] = DG, ['6'] = DG, ['7'] = DG, ['8'] = DG, ['9'] = DG,
};
#undef WS
#undef DG

const char *perf_memmem(const char *h, size_t hn, const char *n, size_t nn)
{
	if (nn == 0)
		return h;
	while (hn >= nn) {
		const char *p = memchr(h, n[0], hn - nn + 1);
		if (!p)
			return NULL;
		if (memcmp(p, n, nn) == 0)
			return p;
		hn -= (size_t)(p - h) + 1;
		h = p + 1;
	}
	return NULL;
}

/* The digits s[0..n) as a number, INT64_MAX when they do not fit.  Up to
 * 18 digits cannot overflow: no test per digit. */
static inline long long perf_parse_ll(const char *s, size_t n)
{
	long long v = 0;

	if (n <= 18) {
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (s[i] - '0');
		return v;
	}
	for (size_t i = 0; i < n; i++) {
		if (v > (long long)(INT64_MAX / 10 - 10))
			return INT64_MAX;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * The oracle's header rule, /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: the shortest
 * comm of at least two characters followed by blanks, digits, optional
 * slashes and digits, and a blank.  Returns the offset just after the
 * PID/TID field, or 0 when the line is not a header.  Beyond the oracle,
 * "-1" stands for a number: perf prints ":-1    -1 [000] ..." for the
 * records of a thread it can no longer name (one that exited), and their
 * sched_switch arguments still carry switch-ins that --offcpu needs.
 */
size_t perf_match_header(const char *s, size_t n, struct header *h)
{
	if (n < 4 || is_ws((unsigned char)s[0]))
		return 0;
	for (size_t e = 2; e < n; e++) {
		size_t j, d1, d1e, d2, d2e;
		if (!is_ws((unsigned char)s[e]))
			continue;
		j = e;
		while (j < n && is_ws((unsigned char)s[j]))
			j++;
		d1 = j;
		if (j + 2 < n && s[j] == '-' && s[j + 1] == '1' && is_ws((unsigned char)s[j + 2])) {
			h->comm = s;
			h->comm_len = e;
			h->pid = h->tid = -1;
			return j + 2;
		}
		while (j < n && is_digit((unsigned char)s[j]))
			j++;
		if (j == d1)
			continue;
		d1e = j;
		while (j < n && s[j] == '/')
			j++;
		d2 = j;
		while (j < n && is_digit((unsigned char)s[j]))
			j++;
		d2e = j;
		if (j >= n || !is_ws((unsigned char)s[j]))
			continue;
		h->comm = s;
		h->comm_len = e;
		if (d2e > d2) {
			h->pid = perf_parse_ll(s + d1, d1e - d1);
			h->tid = perf_parse_ll(s + d2, d2e - d2);
		} else {
			h->pid = -1;
			h->tid = perf_parse_ll(s + d1, d1e - d1);
		}
		return j;
	}
	return 0;
}

/*
 * The usual layout, "[CPU] SEC.FRAC: [PERIOD] EVENT:" and nothing after,
 * read forward in one pass: true when the line has it, with h set as the
 * general rules below would set it (the time is then the first token that
 * can be one, and the event and period are what the oracle's rule reads
 * back from the end); false for anything else.
 */
static bool match_usual(const char *s, size_t n, size_t from, struct header *h)
{
	static const int64_t scale[10] = { 1000000000, 100000000, 10000000, 1000000,
	                                   100000, 10000, 1000, 100, 10, 1 };
	size_t i = from, t0, f, nd = 0, p0, p1, e0;
	int64_t sec = 0, frac = 0;

	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '[') { /* the CPU: not a time */
		while (i < n && !is_ws((unsigned char)s[i]))
			i++;
		while (i < n && is_ws((unsigned char)s[i]))
			i++;
	}
	for (t0 = i; i < n && is_digit((unsigned char)s[i]); i++)
		if (sec <= INT64_MAX / 1000000000)
			sec = sec * 10 + (s[i] - '0');
	if (i == t0 || i >= n || s[i] != '.' || sec > INT64_MAX / 1000000000 - 1)
		return false;
	for (f = ++i; i < n && is_digit((unsigned char)s[i]); i++)
		if (nd < 9)
			frac = frac * 10 + (s[i] - '0'), nd++;
	if (i == f || i >= n || s[i] != ':' || (i + 1 < n && !is_ws((unsigned char)s[i + 1])))
		return false;
	for (i++; i < n && is_ws((unsigned char)s[i]); i++)
		;
	for (p0 = i; i < n && is_digit((unsigned char)s[i]); i++)
		;
	if ((p1 = i) > p0 && i < n && !is_ws((unsigned char)s[i]))
		return false;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	for (e0 = i; i < n && !is_ws((unsigned char)s[i]); i++)
		;
	if (i - e0 < 2 || s[i - 1] != ':')
		return false;
	h->event_len = i - 1 - e0;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	if (i < n)
		return false; /* arguments: a tracepoint */
	h->event = s + e0;
	h->period = p1 > p0 ? (double)perf_parse_ll(s + p0, p1 - p0) : 0;
	h->args = NULL;
	h->args_len = 0;
	h->time_ns = sec * 1000000000 + frac * scale[nd];
	h->has_time = true;
	return true;
}

void perf_match_event(const char *s, size_t n, size_t from, struct header *h)
{
	if (!match_usual(s, n, from, h))
		perf_match_event_rules(s, n, from, h);
}

/*
 * Period and event.  The oracle's rule, /:\s*(\d+)*\s+(\S+):\s*$/, reads
 * them from a line ending with "event:".  Tracepoint headers end with the
 * event's arguments instead ("sched:sched_switch: prev_comm=..."); for those
 * the event is the first token after the time that ends with ':'.  The
 * time is the first "digits.digits:" token after the PID/TID field.
 */
void perf_match_event_rules(const char *s, size_t n, size_t from, struct header *h)
{
	size_t e = n, ts, te, w, q, r;

	h->event = NULL;
	h->event_len = 0;
	h->period = 0;
	h->args = NULL;
	h->args_len = 0;
	h->has_time = false;

	/* the time: the first "digits.digits:" token after the pid field */
	for (size_t i = from; i < n;) {
		while (i < n && is_ws((unsigned char)s[i]))
			i++;
		size_t t0 = i;
		while (i < n && !is_ws((unsigned char)s[i]))
			i++;
		if (i - t0 >= 4 && s[i - 1] == ':' && is_digit((unsigned char)s[t0])) {
			static const int64_t scale[10] = { 1000000000, 100000000, 10000000, 1000000,
			                                   100000, 10000, 1000, 100, 10, 1 };
			size_t k = t0;
			int64_t sec = 0;
			/* digits, then the first '.'; beyond ~292 years of
			 * uptime the nanoseconds overflow: not a timestamp perf
			 * prints, so the record has none (sec stops growing
			 * once past that bound, and stays past it) */
			for (; k < i - 1 && is_digit((unsigned char)s[k]); k++)
				if (sec <= INT64_MAX / 1000000000)
					sec = sec * 10 + (s[k] - '0');
			if (s[k] == '.' && sec <= INT64_MAX / 1000000000 - 1) {
				size_t f = k + 1, fe = f, nd = 0;
				int64_t frac = 0;
				for (; fe < i - 1 && is_digit((unsigned char)s[fe]); fe++)
					if (nd < 9)
						frac = frac * 10 + (s[fe] - '0'), nd++;
				if (fe == i - 1 && fe > f) {
					h->time_ns = sec * 1000000000 + frac * scale[nd];
					h->has_time = true;
					break;
				}
			}
		}
	}

	while (e > from && is_ws((unsigned char)s[e - 1]))
		e--;
	if (e > from && s[e - 1] == ':') {
		te = e - 1;
		ts = te;
		while (ts > from && !is_ws((unsigned char)s[ts - 1]))
			ts--;
		if (ts < te && ts > from) {
			w = ts;
			while (w > from && is_ws((unsigned char)s[w - 1]))
				w--;
			q = w;
			while (q > from && is_digit((unsigned char)s[q - 1]))
				q--;
			r = q;
			while (r > 0 && is_ws((unsigned char)s[r - 1]))
				r--;
			if (r > 0 && s[r - 1] == ':') {
				h->event = s + ts;
				h->event_len = te - ts;
				if (q < w)
					h->period = (double)perf_parse_ll(s + q, w - q);
				return;
			}
		}
	}
	/* tracepoint: "[period] sys:name: args" after the time */
	if (h->has_time) {
		const char *t = NULL;
		for (size_t i = from; i + 1 < n; i++) {
			if (s[i] == ':' && is_ws((unsigned char)s[i + 1]) && i > 0 && is_digit((unsigned char)s[i - 1])) {
				t = s + i + 1; /* after the time */
				break;
			}
		}
		if (!t)
			return;
		size_t i = (size_t)(t - s);
		while (i < n && is_ws((unsigned char)s[i]))
			i++;
		size_t p0 = i;
		while (i < n && is_digit((unsigned char)s[i]))
			i++;
		if (i > p0 && i < n && is_ws((unsigned char)s[i])) {
			h->period = (double)perf_parse_ll(s + p0, i - p0);
			while (i < n && is_ws((unsigned char)s[i]))
				i++;
		} else {
			i = p0;
		}
		size_t t0 = i;
		while (i < n && !is_ws((unsigned char)s[i]))
			i++;
		if (i - t0 >= 2 && s[i - 1] == ':') {
			h->event = s + t0;
			h->event_len = i - 1 - t0;
			while (i < n && is_ws((unsigned char)s[i]))
				i++;
			h->args = s + i;
			h->args_len = n - i;
		}
	}
}

/* Does the header's event pass the filter?  Exact, or the filter plus perf
 * modifiers ("cycles" accepts "cycles:u", "cpu-clock" accepts "cpu-clock:ppp"). */
bool perf_event_matches(const char *ev, size_t evlen, const char *f, size_t flen)
{
	if (evlen == flen && memcmp(ev, f, flen) == 0)
		return true;
	if (evlen > flen + 1 && memcmp(ev, f, flen) == 0 && ev[flen] == ':') {
		for (size_t i = flen + 1; i < evlen; i++)
			if (!strchr("ukhIGHpPSDWe", ev[i]))
				return false;
		return true;
	}
	return false;
}

bool perf_arg_ll(const char *a, size_t n, const char *key, long long *v)
{
	size_t kl = strlen(key);
	const char *p = a, *end = a + n;
	while ((p = perf_memmem(p, (size_t)(end - p), key, kl)) != NULL) {
		if (p == a || is_ws((unsigned char)p[-1])) {
			const char *q = p + kl;
			const char *d = q;
			bool neg = q < end && *q == '-';
			if (neg)
				q++, d++;
			while (q < end && is_digit((unsigned char)*q))
				q++;
			if (q > d) {
				*v = perf_parse_ll(d, (size_t)(q - d));
				if (neg)
					*v = -*v;
				return true;
			}
		}
		p += kl;
	}
	return false;
}


/* The event of the first header in buf[0..len), as the scanner would see
 * it (headers start records: after an empty line, or unindented). */
bool perf_first_event(const char *buf, size_t len, const char **ev, size_t *evlen)
{
	const char *p = buf, *end = buf + len;
	bool idle = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		const char *s = p;
		struct header hd;
		size_t after;
		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0) {
			idle = true;
		} else if (p[0] != '#' && (idle || !is_ws((unsigned char)p[0]))) {
			size_t sn = n;
			while (sn && is_ws((unsigned char)*s))
				s++, sn--;
			after = perf_match_header(s, sn, &hd);
			idle = false;
			if (after) {
				perf_match_event(s, sn, after, &hd);
				if (hd.event) {
					*ev = hd.event;
					*evlen = hd.event_len;
					return true;
				}
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}
