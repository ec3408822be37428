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
#include "../../input/common/time.h"

#define SEC_MAX PERF_SEC_MAX

/* Nanoseconds per unit of a fraction's last digit, by its digit count. */
static const int64_t frac_scale[10] = { 1000000000, 100000000, 10000000, 1000000,
                                        100000, 10000, 1000, 100, 10, 1 };

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
 * The digits at s[i..n): the end of their run, with the value of the run
 * in *v when it is at most 19 digits.  Eight bytes at a time where eight
 * can be read (little-endian machines): a byte is a digit when its high
 * nibble is 3 and adding 6 keeps it so (a carry out of a non-digit byte
 * only reaches bytes after it); the digits are shifted to the top and
 * folded pairwise (10, 100, 10000) in three multiplies.
 */
static inline size_t digit_run(const char *s, size_t i, size_t n, uint64_t *v)
{
	uint64_t acc = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
	                                   100000000 };
	const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, three = 0x3030303030303030ull,
	               low7 = 0x7F7F7F7F7F7F7F7Full;
	while (n - i >= 8) {
		uint64_t x = ph_rd64(s + i);
		uint64_t z = ((x & hi) ^ three) | (((x + 0x0606060606060606ull) & hi) ^ three);
		uint64_t nz = (((z & low7) + low7) | z) & ~low7; /* bit 7: not a digit */
		unsigned k = nz ? (unsigned)__builtin_ctzll(nz) >> 3 : 8;
		if (k) {
			uint64_t d = x << (8 * (8 - k));
			d = (d & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
			d = (d & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
			d = (d & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
			acc = acc * pow10[k] + d;
		}
		i += k;
		if (k < 8) {
			*v = acc;
			return i;
		}
	}
#endif
	for (; i < n && is_digit((unsigned char)s[i]); i++)
		acc = acc * 10 + (uint64_t)(s[i] - '0');
	*v = acc;
	return i;
}

#if defined(__SSE2__)
/* Bit k: s[k] of the 16 at s is blank. */
static inline unsigned blanks16(const char *s)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), four = _mm_set1_epi8(4);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i t = _mm_sub_epi8(v, tab); /* '\t' .. '\r' become 0 .. 4 */
	__m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
	return (unsigned)_mm_movemask_epi8(ws);
}
#endif

/* The end of the run of non-blank bytes at s[i..n): 16 at a time with
 * SSE2; the last 16 bytes of the line are read as the 16 ending at n,
 * never past it. */
static inline size_t skip_token(const char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
	for (; n - i >= 16; i += 16) {
		unsigned m = blanks16(s + i);
		if (m)
			return i + (unsigned)__builtin_ctz(m);
	}
	if (i < n && n >= 16) {
		unsigned m = blanks16(s + n - 16) >> (16 - (n - i));
		return m ? i + (unsigned)__builtin_ctz(m) : n;
	}
#endif
	while (i < n && !is_ws((unsigned char)s[i]))
		i++;
	return i;
}

/*
 * The PID/TID field after a comm ending at e: blanks, digits, optional
 * slashes and digits, and a blank ("-1" standing for a number when
 * minus_one, below).  Returns the offset just after it with h's comm, pid
 * and tid set, or 0.
 */
static size_t pid_field(const char *s, size_t e, size_t n, struct header *h, bool minus_one)
{
	size_t j = e, d1, d1e, d2, d2e;
	uint64_t v1, v2;

	while (j < n && is_ws((unsigned char)s[j]))
		j++;
	d1 = j;
	if (minus_one && j + 2 < n && s[j] == '-' && s[j + 1] == '1' && is_ws((unsigned char)s[j + 2])) {
		h->comm = s;
		h->comm_len = e;
		h->pid = h->tid = -1;
		return j + 2;
	}
	j = digit_run(s, j, n, &v1);
	if (j == d1)
		return 0;
	d1e = j;
	while (j < n && s[j] == '/')
		j++;
	d2 = j;
	j = digit_run(s, j, n, &v2);
	d2e = j;
	if (j >= n || !is_ws((unsigned char)s[j]))
		return 0;
	h->comm = s;
	h->comm_len = e;
	/* digit_run's values hold up to 18 digits; perf_parse_ll saturates
	 * longer runs */
	if (d1e - d1 > 18)
		v1 = (uint64_t)perf_parse_ll(s + d1, d1e - d1);
	if (d2e - d2 > 18)
		v2 = (uint64_t)perf_parse_ll(s + d2, d2e - d2);
	if (d2e > d2) {
		h->pid = (long long)v1;
		h->tid = (long long)v2;
	} else {
		h->pid = -1;
		h->tid = (long long)v1;
	}
	return j;
}

/*
 * A comm of one character ("w 20779 [001] 6236.830779: ..."), which the
 * oracle's rule cannot give: the field after its PID/TID must be one that
 * follows it in perf's layouts (the "[CPU]", or a time or an event, which
 * end with ':') or nothing, so that a comm of several words whose first
 * is one character and second a number ("V 8 Worker 25607 ...") is still
 * read by the oracle's rule.  Returns the offset after the PID/TID field,
 * or 0.
 */
static size_t one_char_comm(const char *s, size_t n, struct header *h)
{
	struct header t;
	size_t after = pid_field(s, 1, n, &t, false), j = after, k;

	if (!after)
		return 0;
	while (j < n && is_ws((unsigned char)s[j]))
		j++;
	k = skip_token(s, j, n);
	if (j < n && s[j] != '[' && s[k - 1] != ':')
		return 0;
	h->comm = t.comm;
	h->comm_len = t.comm_len;
	h->pid = t.pid;
	h->tid = t.tid;
	return after;
}

/*
 * The oracle's header rule, /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: the shortest
 * comm of at least two characters followed by blanks, digits, optional
 * slashes and digits, and a blank.  Returns the offset just after the
 * PID/TID field, or 0 when the line is not a header.  Beyond the oracle,
 * "-1" stands for a number: perf prints ":-1    -1 [000] ..." for the
 * records of a thread it can no longer name (one that exited), and their
 * sched_switch arguments still carry switch-ins that --offcpu needs.  And
 * a comm of one character is read as one (one_char_comm), where the
 * oracle's rule takes the comm to run on to a later number (the period):
 * a documented deviation (flamekit-formats(5)).
 */
static size_t oracle_rule(const char *s, size_t n, struct header *h, bool minus_one)
{
	size_t j;

	/* each blank from the third byte on ends a candidate comm */
	for (size_t e = 2; (e = skip_token(s, e, n)) < n; e++)
		if ((j = pid_field(s, e, n, h, minus_one)))
			return j;
	return 0;
}

size_t perf_match_header(const char *s, size_t n, struct header *h)
{
	size_t j;

	if (n < 4 || is_ws((unsigned char)s[0]))
		return 0;
	if (is_ws((unsigned char)s[1]) && (j = one_char_comm(s, n, h)))
		return j;
	return oracle_rule(s, n, h, true);
}

size_t perf_match_exiting(const char *s, size_t n, struct header *h)
{
	return oracle_rule(s, n, h, false) ? h->comm_len : 0;
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
	size_t i = from, t0, f, nd, p0, p1, e0;
	uint64_t sec, frac, period;

	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '[') { /* the CPU: not a time */
		i = skip_token(s, i, n);
		while (i < n && is_ws((unsigned char)s[i]))
			i++;
	}
	/* runs of more than 18 digits (leading zeros, overflows) are left to
	 * the general rules */
	i = digit_run(s, t0 = i, n, &sec);
	if (i == t0 || i - t0 > 18 || i >= n || s[i] != '.' || sec > SEC_MAX)
		return false;
	i = digit_run(s, f = i + 1, n, &frac);
	if (i == f || (nd = i - f) > 18 || i >= n || s[i] != ':' ||
	    (i + 1 < n && !is_ws((unsigned char)s[i + 1])))
		return false;
	for (i++; i < n && is_ws((unsigned char)s[i]); i++)
		;
	i = digit_run(s, p0 = i, n, &period);
	if ((p1 = i) > p0 && ((i < n && !is_ws((unsigned char)s[i])) || p1 - p0 > 18))
		return false;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	i = skip_token(s, e0 = i, n);
	if (i - e0 < 2 || s[i - 1] != ':')
		return false;
	h->event_len = i - 1 - e0;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	if (i < n)
		return false; /* arguments: a tracepoint */
	h->event = s + e0;
	h->period = (double)period;
	h->args = NULL;
	h->args_len = 0;
	/* the first 9 digits of the fraction are the nanoseconds */
	for (; nd > 9; nd--)
		frac /= 10;
	h->time_ns = (int64_t)sec * 1000000000 + (int64_t)frac * frac_scale[nd];
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
			size_t k = t0;
			int64_t sec = 0;
			/* digits, then the first '.'; beyond SEC_MAX the record
			 * has no time (sec stops growing once past that bound,
			 * and stays past it) */
			for (; k < i - 1 && is_digit((unsigned char)s[k]); k++)
				if (sec <= SEC_MAX)
					sec = sec * 10 + (s[k] - '0');
			if (s[k] == '.' && sec <= SEC_MAX) {
				size_t f = k + 1, fe = f, nd = 0;
				int64_t frac = 0;
				for (; fe < i - 1 && is_digit((unsigned char)s[fe]); fe++)
					if (nd < 9)
						frac = frac * 10 + (s[fe] - '0'), nd++;
				if (fe == i - 1 && fe > f) {
					h->time_ns = sec * 1000000000 + frac * frac_scale[nd];
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
			/* where the first event counts, a ":-1 -1" header
			 * is read as FlameGraph reads it (scan.c) */
			if (after && hd.tid == -1)
				after = perf_match_exiting(s, sn, &hd);
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
