/*
 * Input plugin "perf": the text `perf script` prints, folded the way
 * FlameGraph's stackcollapse-perf.pl (HEAD, 41fee1f) folds it, minus its bugs.
 *
 * A record is a header line, its frame lines (leaf first) and a blank line:
 *
 *   java 24636/25607 [000] 4794564.109216:   1001001 cpu-clock:ppp:
 *           7f7b3c2a1b2c Interpreter+0x2c (/tmp/perf-24636.map)
 *       ffffffff8103ce3b native_safe_halt ([kernel.kallsyms])
 *
 * The header is recognised with the oracle's rule (a comm that may hold
 * spaces, then PID or PID/TID), the period and event with its rule too (the
 * line ends with "[period] event:"); tracepoint headers, whose event is
 * followed by its arguments, are understood as well.  Frame names are tidied
 * exactly as the oracle does (see tidy_piece()).  Where the oracle is wrong
 * we are not: the last record is kept at EOF, a header indented by perf's
 * comm padding is still a header, "(anonymous namespace)::f" frames are kept
 * and "operator->" is not split as an inline chain.
 *
 * Speed: input is read in large chunks that end on a record boundary and
 * parsed in place (no per-line allocation).  Two caches map a record to the
 * leaf node it gave before, so a repeated stack costs one push_node: the
 * first is keyed by the raw text of the record's frame lines (plus its comm
 * frame) and skips all parsing; the second by the tidied names, for records
 * whose text differs but whose stack does not (other leaf addresses).  With several threads each chunk is parsed by
 * a worker into its own forked sink; sinks are joined in input order, so
 * the output does not depend on the thread count.  Memory is bounded by
 * chunk size x threads (plus the largest single record).
 *
 * --offcpu turns sched:sched_switch events into off-CPU time; see offcpu_*.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#define CHUNK_BYTES ((size_t)4 << 20)      /* target size of one chunk */
#define RECORD_BYTES_MAX ((size_t)1 << 30) /* one record larger than this is refused */
#define CACHE_ENTRIES_MAX ((size_t)1 << 19) /* per cache: 24 MiB of slots at most */
#define MAX_THREADS 64

struct perf_opts {
	int pid, tid, kernel, jit, all, addrs, offcpu;
	const char *event_filter;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static inline bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline bool is_word(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_xdigit_lc(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

static const char *memmem_(const char *h, size_t hn, const char *n, size_t nn)
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

/* Two 64-bit hashes of the bytes in one pass.  The stack caches keep only
 * these 128 bits and the length, not the bytes: a false match needs a
 * 2^-128 coincidence, and the caches stay small. */
struct h128 {
	uint64_t a, b;
};

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static inline void hash_update(struct h128 *h, const char *p, size_t n)
{
	uint64_t a = h->a ^ n, b = h->b + n, w;
	while (n >= 8) {
		memcpy(&w, p, 8);
		a = (a ^ w) * 0x100000001b3ull;
		a ^= a >> 29;
		b = (b + w) * 0x9e3779b97f4a7c15ull;
		b ^= b >> 31;
		p += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, p, n);
	a = (a ^ w) * 0x100000001b3ull;
	b = (b + w) * 0x9e3779b97f4a7c15ull;
	h->a = mix64(a);
	h->b = mix64(b ^ (a >> 17));
}

static inline struct h128 hash_bytes(const char *p, size_t n)
{
	struct h128 h = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
	hash_update(&h, p, n);
	return h;
}

/* ------------------------------------------------------------------ */
/* Header lines                                                         */

struct header {
	const char *comm;
	size_t comm_len;
	long long pid, tid;  /* pid -1 when the header gives only one number */
	const char *event;   /* NULL when no event could be read */
	size_t event_len;
	double period;       /* 0 when the header has none */
	bool has_time;
	int64_t time_ns;
	const char *args;    /* tracepoint arguments after the event, or NULL */
	size_t args_len;
};

static long long parse_ll(const char *s, size_t n)
{
	long long v = 0;
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
 * PID/TID field, or 0 when the line is not a header.
 */
static size_t match_header(const char *s, size_t n, struct header *h)
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
			h->pid = parse_ll(s + d1, d1e - d1);
			h->tid = parse_ll(s + d2, d2e - d2);
		} else {
			h->pid = -1;
			h->tid = parse_ll(s + d1, d1e - d1);
		}
		return j;
	}
	return 0;
}

/*
 * Period and event.  The oracle's rule, /:\s*(\d+)*\s+(\S+):\s*$/, reads
 * them from a line ending with "event:".  Tracepoint headers end with the
 * event's arguments instead ("sched:sched_switch: prev_comm=..."); for those
 * the event is the first token after the time that ends with ':'.
 */
static void match_event(const char *s, size_t n, size_t from, struct header *h)
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
			const char *dot = memchr(s + t0, '.', i - t0);
			size_t k = t0;
			while (k < i - 1 && is_digit((unsigned char)s[k]))
				k++;
			if (dot && s + k == dot) {
				size_t f = k + 1, fe = f;
				while (fe < i - 1 && is_digit((unsigned char)s[fe]))
					fe++;
				long long sec = parse_ll(s + t0, k - t0);
				/* beyond ~292 years of uptime the nanoseconds overflow:
				 * not a timestamp perf prints, so the record has none */
				if (fe == i - 1 && fe > f && sec <= INT64_MAX / 1000000000 - 1) {
					int64_t ns = (int64_t)sec * 1000000000;
					int64_t frac = 0;
					size_t nd = 0;
					for (size_t x = f; x < fe && nd < 9; x++, nd++)
						frac = frac * 10 + (s[x] - '0');
					for (; nd < 9; nd++)
						frac *= 10;
					h->time_ns = ns + frac;
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
					h->period = (double)parse_ll(s + q, w - q);
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
			h->period = (double)parse_ll(s + p0, i - p0);
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
static bool event_matches(const char *ev, size_t evlen, const char *f, size_t flen)
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

/* ------------------------------------------------------------------ */
/* Frame lines                                                          */

struct fline {
	const char *pc;
	size_t pc_len;
	const char *func;
	size_t func_len;
	const char *mod;
	size_t mod_len;
};

/* The oracle's frame rule, /^\s*(\w+)\s*(.+) \((.*)\)/: the function runs
 * to the last " (" that has a ')' after it; the module to the last ')'. */
static bool match_frame(const char *s, size_t n, struct fline *f)
{
	size_t i = 0, rp, lp, pce;
	const char *p;

	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	f->pc = s + i;
	while (i < n && is_word((unsigned char)s[i]))
		i++;
	f->pc_len = (size_t)(s + i - f->pc);
	if (!f->pc_len)
		return false;
	pce = i;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	p = s + n;
	while (p > s && p[-1] != ')')
		p--;
	if (p == s)
		return false;
	rp = (size_t)(p - s) - 1;
	/* last " (" before the last ')' with at least one function byte */
	lp = rp;
	while (lp > pce && !(s[lp - 1] == ' ' && s[lp] == '('))
		lp--;
	if (lp <= pce)
		return false;
	if (lp - 1 <= i) {
		/* no name: the regex backtracks and the name is the one blank
		 * before " (" ("7f1e2215d058  (/lib/libc.so)" names a frame " ") */
		if (lp - 1 <= pce)
			return false;
		i = lp - 2;
	}
	f->func = s + i;
	f->func_len = lp - 1 - i;
	f->mod = s + lp + 1;
	f->mod_len = rp - lp - 1;
	return true;
}

/* ------------------------------------------------------------------ */
/* Per-chunk parser                                                     */

struct cache_entry {
	uint64_t a, b;   /* struct h128; a == 0 && b == 0: empty slot */
	fk_node_t node;
	uint32_t len;
};

struct cache {
	struct cache_entry *v;
	size_t mask, n;
};

struct frame_off {
	size_t off, len; /* in names */
	int annot;
};

/* One switched-out thread waiting for its switch-in (--offcpu). */
struct pending {
	long long tid;
	int64_t t_out;
	struct fk_sample meta;
	char *names;
	size_t names_len, names_cap;
	struct frame_off *fr;
	size_t nfr, frcap;
	bool used;
};

struct shared {
	const struct fk_host *h;
	const struct perf_opts *o;
	bool annotate_kernel, annotate_jit;
	/* the kept event: from --event-filter, or the first one seen */
	const char *event;
	size_t event_len;
	char event_buf[256];
	bool event_defaulted;
};

struct job {
	const struct shared *sh;
	struct fk_sink *sink;
	/* the chunk */
	char *buf;
	size_t len, cap;
	/* results, with line numbers relative to the chunk (1 = its first line) */
	uint64_t nlines;
	uint64_t *skips;
	size_t nskips, skipcap;
	int rc;
	uint64_t err_line;
	char err[256];
	uint64_t dropped;
	char dropped_ev[128];
	int unit_kind;    /* from the first kept record: 1 no period, 2 period */
	/* scratch, reused */
	struct cache cache; /* tidied stack -> node */
	struct cache raw;   /* comm frame + raw frame lines -> node */
	char *names;
	size_t names_len, names_cap;
	struct frame_off *fr;
	size_t nfr, frcap;
	struct fk_frameref *refs;
	size_t refcap;
	/* offcpu state (single-threaded only) */
	struct pending *pend;
	size_t npend;
	uint64_t offcpu_unmatched, offcpu_other;
	/* thread */
	pthread_t th;
	bool running;     /* a thread is parsing it */
	bool pending;     /* parsed, not yet collected */
};

static void cache_free(const struct fk_host *h, struct cache *c)
{
	h->free(c->v);
	memset(c, 0, sizeof *c);
}

static int cache_init(const struct fk_host *h, struct cache *c)
{
	c->mask = 4095;
	c->n = 0;
	c->v = h->alloc((c->mask + 1) * sizeof *c->v);
	if (!c->v)
		return FK_ERR_NOMEM;
	memset(c->v, 0, (c->mask + 1) * sizeof *c->v);
	return 0;
}

static inline bool slot_empty(const struct cache_entry *e) { return e->a == 0 && e->b == 0; }

/* The slot holding (hv, len), or the empty slot where it would go. */
static struct cache_entry *cache_find(struct cache *c, struct h128 hv, size_t len)
{
	size_t j;
	if (hv.a == 0 && hv.b == 0)
		hv.b = 1;
	j = hv.a & c->mask;
	for (;;) {
		struct cache_entry *e = &c->v[j];
		if (slot_empty(e) || (e->a == hv.a && e->b == hv.b && e->len == (uint32_t)len))
			return e;
		j = (j + 1) & c->mask;
	}
}

/* Remember (hv, len) -> node in the slot cache_find() gave.  A full cache
 * (CACHE_ENTRIES_MAX) stops remembering; parsing goes on uncached. */
static int cache_put(const struct fk_host *h, struct cache *c, struct cache_entry *e,
                     struct h128 hv, size_t len, fk_node_t node)
{
	if (c->n >= CACHE_ENTRIES_MAX || node == FK_NODE_NONE)
		return 0;
	if (hv.a == 0 && hv.b == 0)
		hv.b = 1;
	e->a = hv.a;
	e->b = hv.b;
	e->len = (uint32_t)len;
	e->node = node;
	if (++c->n * 2 > c->mask) {
		size_t nmask = c->mask * 2 + 1;
		struct cache_entry *nv = h->alloc((nmask + 1) * sizeof *nv);
		if (!nv)
			return FK_ERR_NOMEM;
		memset(nv, 0, (nmask + 1) * sizeof *nv);
		for (size_t i = 0; i <= c->mask; i++) {
			if (slot_empty(&c->v[i]))
				continue;
			size_t k = c->v[i].a & nmask;
			while (!slot_empty(&nv[k]))
				k = (k + 1) & nmask;
			nv[k] = c->v[i];
		}
		h->free(c->v);
		c->v = nv;
		c->mask = nmask;
	}
	return 0;
}

static int job_error(struct job *j, uint64_t line, int rc, const char *msg)
{
	if (j->rc == 0) {
		j->rc = rc;
		j->err_line = line;
		snprintf(j->err, sizeof j->err, "%s", msg);
	}
	return rc;
}

static int job_skip(struct job *j, uint64_t line)
{
	if (j->nskips == j->skipcap) {
		size_t cap = j->skipcap ? j->skipcap * 2 : 64;
		uint64_t *v = j->sh->h->realloc(j->skips, cap * sizeof *v);
		if (!v)
			return job_error(j, line, FK_ERR_NOMEM, "out of memory");
		j->skips = v;
		j->skipcap = cap;
	}
	j->skips[j->nskips++] = line;
	return 0;
}

static int grow(const struct fk_host *h, void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *v;
	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	v = h->realloc(*p, c * elem);
	if (!v)
		return FK_ERR_NOMEM;
	*p = v;
	*cap = c;
	return 0;
}

/* Append bytes to the names scratch. */
static int names_put(struct job *j, const char *s, size_t n)
{
	if (j->names_len + n > j->names_cap &&
	    grow(j->sh->h, (void **)&j->names, &j->names_cap, j->names_len + n, 1) < 0)
		return FK_ERR_NOMEM;
	memcpy(j->names + j->names_len, s, n);
	j->names_len += n;
	return 0;
}

static int frame_add(struct job *j, size_t off, size_t len, int annot)
{
	if (j->nfr == j->frcap &&
	    grow(j->sh->h, (void **)&j->fr, &j->frcap, j->nfr + 1, sizeof *j->fr) < 0)
		return FK_ERR_NOMEM;
	j->fr[j->nfr].off = off;
	j->fr[j->nfr].len = len;
	j->fr[j->nfr].annot = annot;
	j->nfr++;
	return 0;
}

static bool has_sub(const char *s, size_t n, const char *sub)
{
	return memmem_(s, n, sub, strlen(sub)) != NULL;
}

/* /\.\(.*\)\./: a Go method such as "net/http.(*Client).Do" */
static bool looks_go(const char *s, size_t n)
{
	const char *a = memmem_(s, n, ".(", 2);
	if (!a)
		return false;
	a += 2;
	return memmem_(a, n - (size_t)(a - s), ").", 2) != NULL;
}

/* /vmlinux$/, /^\[/, /\/tmp\/perf-\d+\.map/ on the module */
static bool mod_is_kernel(const char *m, size_t n)
{
	if (has_sub(m, n, "unknown"))
		return false;
	if (n > 0 && m[0] == '[')
		return true;
	return n >= 7 && memcmp(m + n - 7, "vmlinux", 7) == 0;
}

static bool mod_is_jit(const char *m, size_t n)
{
	const char *p = m;
	size_t left = n;
	while ((p = memmem_(p, left, "/tmp/perf-", 10)) != NULL) {
		const char *d = p + 10, *end = m + n;
		const char *q = d;
		while (q < end && is_digit((unsigned char)*q))
			q++;
		/* the oracle's "." matches any byte before "map" */
		if (q > d && end - q >= 4 && memcmp(q + 1, "map", 3) == 0)
			return true;
		p++;
		left = (size_t)(end - p);
	}
	return false;
}

/*
 * Tidy one inline piece and append it to names.  The oracle's steps, in
 * order: "[unknown]" becomes the module's base name (or its address with
 * --addrs); ';' becomes ':'; unless it is a Go method, everything from the
 * first '(' that does not open "(anonymous namespace)" is cut; quotes are
 * deleted; for a java comm a leading 'L' goes from names holding '/'.
 */
static int tidy_piece(struct job *j, const char *p, size_t n, const struct fline *f,
                      bool java, bool first, int *annot)
{
	const struct perf_opts *o = j->sh->o;
	size_t start = j->names_len;
	char tmp[512];

	*annot = FK_ANNOT_NONE;
	if (n == 9 && memcmp(p, "[unknown]", 9) == 0) {
		const char *m = f->mod;
		size_t mn = f->mod_len;
		int k;
		if (mn == 9 && memcmp(m, "[unknown]", 9) == 0) {
			m = "unknown";
			mn = 7;
		} else {
			const char *sl = m + mn;
			while (sl > m && sl[-1] != '/')
				sl--;
			mn -= (size_t)(sl - m);
			m = sl;
		}
		if (mn > 200)
			mn = 200;
		if (o->addrs)
			k = snprintf(tmp, sizeof tmp, "[%.*s <%.*s>]", (int)mn, m,
			             (int)(f->pc_len > 64 ? 64 : f->pc_len), f->pc);
		else
			k = snprintf(tmp, sizeof tmp, "[%.*s]", (int)mn, m);
		p = tmp;
		n = (size_t)k;
	}
	if (!looks_go(p, n)) {
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '(' && !(n - i >= 21 && memcmp(p + i, "(anonymous namespace)", 21) == 0)) {
				n = i;
				break;
			}
		}
	}
	if (j->names_len + n > j->names_cap &&
	    grow(j->sh->h, (void **)&j->names, &j->names_cap, j->names_len + n, 1) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c == '"' || c == '\'')
			continue;
		j->names[j->names_len++] = c == ';' ? ':' : c;
	}
	if (java && memchr(j->names + start, '/', j->names_len - start) && j->names_len > start &&
	    j->names[start] == 'L') {
		memmove(j->names + start, j->names + start + 1, j->names_len - start - 1);
		j->names_len--;
	}
	if (!first) {
		if (!has_sub(j->names + start, j->names_len - start, "_[i]"))
			*annot = FK_ANNOT_INLINE;
	} else if (j->sh->annotate_kernel && mod_is_kernel(f->mod, f->mod_len)) {
		*annot = FK_ANNOT_KERNEL;
	} else if (j->sh->annotate_jit && mod_is_jit(f->mod, f->mod_len)) {
		if (!has_sub(j->names + start, j->names_len - start, "_[j]"))
			*annot = FK_ANNOT_JIT;
	}
	return 0;
}

/* One frame line: append its pieces to the record, leaf first. */
static int add_frame(struct job *j, const struct fline *f, bool java)
{
	const char *s = f->func;
	size_t n = f->func_len, cut = n;
	size_t starts[64], ends[64], np = 0;

	/* strip a trailing +0x<hex> offset */
	{
		size_t k = n;
		while (k > 0 && is_xdigit_lc((unsigned char)s[k - 1]))
			k--;
		if (k < n && k >= 3 && s[k - 1] == 'x' && s[k - 2] == '0' && s[k - 3] == '+')
			cut = k - 3;
	}
	n = cut;
	/* the oracle skips names starting with '(' (it meant process names);
	 * "(anonymous namespace)::f" is a real C++ frame */
	if (n > 0 && s[0] == '(' && !(n >= 21 && memcmp(s, "(anonymous namespace)", 21) == 0))
		return 0;
	/* split at "->" (perf's inline chain), but not inside "operator->" */
	{
		size_t a = 0;
		for (size_t i = 0; i + 1 < n; i++) {
			if (s[i] != '-' || s[i + 1] != '>')
				continue;
			if (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0)
				continue;
			if (np < 63) {
				starts[np] = a;
				ends[np] = i;
				np++;
			}
			a = i + 2;
			i++;
		}
		starts[np] = a;
		ends[np] = n;
		np++;
	}
	/* pieces go root-to-leaf in the final stack; we collect leaf first */
	for (size_t k = np; k-- > 0;) {
		size_t off = j->names_len;
		int annot, rc;
		rc = tidy_piece(j, s + starts[k], ends[k] - starts[k], f, java, k == 0, &annot);
		if (rc < 0)
			return rc;
		rc = frame_add(j, off, j->names_len - off, annot);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Record state while scanning a chunk. */
enum rstate { R_IDLE, R_KEEP, R_DROP };

struct record {
	enum rstate st;
	struct fk_sample meta;
	size_t pname_len; /* names[0..pname_len) is the comm frame */
	bool java;
	uint64_t line;
	/* the raw-text cache: set when the record's frame lines were hashed */
	bool raw;
	struct h128 raw_hash;
	size_t raw_len, skips0;
	/* offcpu */
	bool is_switch;
	long long prev_pid, next_pid;
};

/* Push the record in names/fr; *out (if not NULL) gets its leaf node. */
static int push_record(struct job *j, struct fk_sample *smp, fk_node_t *out)
{
	const struct fk_host *h = j->sh->h;
	struct h128 hv;
	struct cache_entry *e;
	size_t keylen;
	int rc;

	/* the key: names plus each frame's annotation and length */
	const char *names0 = j->names;
	keylen = j->names_len;
	for (size_t i = 0; i < j->nfr; i++) {
		char a[2] = { (char)('0' + j->fr[i].annot), '\x01' };
		if ((rc = names_put(j, a, 2)) < 0)
			return rc;
	}
	/* names_put may have moved the buffer the comm points into */
	if (smp->comm && smp->comm == names0)
		smp->comm = j->names;
	hv = hash_bytes(j->names, j->names_len);
	e = cache_find(&j->cache, hv, j->names_len);
	if (!slot_empty(e)) {
		j->names_len = keylen;
		if (out)
			*out = e->node;
		return h->push_node(j->sink, e->node, smp);
	}
	if (grow(h, (void **)&j->refs, &j->refcap, j->nfr + 1, sizeof *j->refs) < 0)
		return FK_ERR_NOMEM;
	/* root first: the comm frame, then frames from the outermost caller */
	memset(j->refs, 0, (j->nfr + 1) * sizeof *j->refs);
	size_t k = 0;
	/* fr[0] is the comm frame, the rest leaf first */
	j->refs[k].name = j->names + j->fr[0].off;
	j->refs[k].len = j->fr[0].len;
	k++;
	for (size_t i = j->nfr; i-- > 1;) {
		j->refs[k].name = j->names + j->fr[i].off;
		j->refs[k].len = j->fr[i].len;
		j->refs[k].annot = j->fr[i].annot;
		k++;
	}
	smp->frames = j->refs;
	smp->nframes = k;
	fk_node_t node = FK_NODE_NONE;
	rc = h->push(j->sink, smp, &node);
	smp->frames = NULL;
	if (rc < 0)
		return rc;
	if (out)
		*out = node;
	rc = cache_put(h, &j->cache, e, hv, j->names_len, node);
	j->names_len = keylen;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Off-CPU: sched_switch pairing                                         */

static bool arg_ll(const char *a, size_t n, const char *key, long long *v)
{
	size_t kl = strlen(key);
	const char *p = a, *end = a + n;
	while ((p = memmem_(p, (size_t)(end - p), key, kl)) != NULL) {
		if (p == a || is_ws((unsigned char)p[-1])) {
			const char *q = p + kl;
			const char *d = q;
			bool neg = q < end && *q == '-';
			if (neg)
				q++, d++;
			while (q < end && is_digit((unsigned char)*q))
				q++;
			if (q > d) {
				*v = parse_ll(d, (size_t)(q - d));
				if (neg)
					*v = -*v;
				return true;
			}
		}
		p += kl;
	}
	return false;
}

static struct pending *pend_find(struct job *j, long long tid, bool create)
{
	struct pending *free_slot = NULL;
	for (size_t i = 0; i < j->npend; i++) {
		if (j->pend[i].used && j->pend[i].tid == tid)
			return &j->pend[i];
		if (!j->pend[i].used && !free_slot)
			free_slot = &j->pend[i];
	}
	if (!create)
		return NULL;
	if (!free_slot) {
		size_t cap = j->npend ? j->npend * 2 : 16;
		struct pending *v = j->sh->h->realloc(j->pend, cap * sizeof *v);
		if (!v)
			return NULL;
		memset(v + j->npend, 0, (cap - j->npend) * sizeof *v);
		j->pend = v;
		free_slot = &v[j->npend];
		j->npend = cap;
	}
	free_slot->used = true;
	free_slot->tid = tid;
	return free_slot;
}

/* A switch-in of tid at t: charge its pending switch-out. */
static int offcpu_in(struct job *j, long long tid, int64_t t)
{
	const struct fk_host *h = j->sh->h;
	struct pending *p = pend_find(j, tid, false);
	struct fk_sample smp;
	int64_t d;
	int rc;

	if (!p)
		return 0;
	p->used = false;
	d = t - p->t_out;
	if (d < 0)
		d = 0;
	smp = p->meta;
	smp.weight[0] = d % 1000 == 0 ? (double)(d / 1000) : (double)d / 1000.0;
	/* swap the saved stack into the scratch and push it through the cache */
	{
		char *sn = j->names;
		size_t snl = j->names_len, snc = j->names_cap;
		struct frame_off *sf = j->fr;
		size_t snf = j->nfr, sfc = j->frcap;
		j->names = p->names;
		j->names_len = p->names_len;
		j->names_cap = p->names_cap;
		j->fr = p->fr;
		j->nfr = p->nfr;
		j->frcap = p->frcap;
		smp.comm = j->names; /* the comm frame comes first */
		rc = push_record(j, &smp, NULL);
		p->names = j->names;
		p->names_cap = j->names_cap;
		p->fr = j->fr;
		p->frcap = j->frcap;
		j->names = sn;
		j->names_len = snl;
		j->names_cap = snc;
		j->fr = sf;
		j->nfr = snf;
		j->frcap = sfc;
	}
	(void)h;
	return rc;
}

/* A switch-out of tid at t with the record's stack: remember it. */
static int offcpu_out(struct job *j, struct record *r, long long tid)
{
	const struct fk_host *h = j->sh->h;
	struct pending *p = pend_find(j, tid, false);
	if (p)
		j->offcpu_unmatched++; /* two switch-outs, no switch-in between: keep the later */
	else if (!(p = pend_find(j, tid, true)))
		return FK_ERR_NOMEM;
	p->t_out = r->meta.time_ns;
	p->meta = r->meta;
	p->meta.comm = NULL; /* set again from the copied names when charged */
	p->meta.flags |= FK_SAMPLE_TID;
	p->meta.tid = (int32_t)tid;
	if (grow(h, (void **)&p->names, &p->names_cap, j->names_len + 1, 1) < 0 ||
	    grow(h, (void **)&p->fr, &p->frcap, j->nfr + 1, sizeof *p->fr) < 0)
		return FK_ERR_NOMEM;
	memcpy(p->names, j->names, j->names_len);
	p->names_len = j->names_len;
	memcpy(p->fr, j->fr, j->nfr * sizeof *p->fr);
	p->nfr = j->nfr;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Scanning a chunk                                                     */

static void record_reset(struct job *j, struct record *r)
{
	r->st = R_IDLE;
	r->raw = false;
	j->names_len = 0;
	j->nfr = 0;
}

static int record_end(struct job *j, struct record *r)
{
	int rc = 0;

	if (r->st != R_KEEP) {
		record_reset(j, r);
		return 0;
	}
	if (j->sh->o->offcpu) {
		if (r->is_switch) {
			if (r->next_pid >= 0 && r->meta.flags & FK_SAMPLE_TIME)
				rc = offcpu_in(j, r->next_pid, r->meta.time_ns);
			if (rc == 0 && r->prev_pid > 0 && (r->meta.flags & FK_SAMPLE_TIME))
				rc = offcpu_out(j, r, r->prev_pid);
		}
	} else {
		struct fk_sample smp = r->meta;
		fk_node_t node = FK_NODE_NONE;
		smp.comm = j->names;
		rc = push_record(j, &smp, &node);
		/* a record whose lines all parsed can be repeated from its text */
		if (rc == 0 && r->raw && j->nskips == r->skips0)
			rc = cache_put(j->sh->h, &j->raw, cache_find(&j->raw, r->raw_hash, r->raw_len),
			               r->raw_hash, r->raw_len, node);
	}
	record_reset(j, r);
	return rc;
}

static int header_start(struct job *j, struct record *r, const char *s, size_t n,
                        size_t after, struct header *hd, uint64_t line)
{
	const struct shared *sh = j->sh;
	const struct perf_opts *o = sh->o;
	char num[64];
	int k, rc;

	match_event(s, n, after, hd);
	r->is_switch = false;
	r->prev_pid = r->next_pid = -1;
	r->line = line;
	if (o->offcpu) {
		if (!hd->event || !has_sub(hd->event, hd->event_len, "sched_switch")) {
			j->offcpu_other++;
			r->st = R_DROP;
			return 0;
		}
		r->is_switch = true;
		if (!arg_ll(hd->args ? hd->args : "", hd->args ? hd->args_len : 0, "prev_pid=", &r->prev_pid))
			r->prev_pid = -1;
		if (!arg_ll(hd->args ? hd->args : "", hd->args ? hd->args_len : 0, "next_pid=", &r->next_pid))
			r->next_pid = -1;
	} else if (hd->event && sh->event &&
	           !event_matches(hd->event, hd->event_len, sh->event, sh->event_len)) {
		if (!j->dropped_ev[0])
			snprintf(j->dropped_ev, sizeof j->dropped_ev, "%.*s",
			         (int)(hd->event_len > 100 ? 100 : hd->event_len), hd->event);
		j->dropped++;
		r->st = R_DROP;
		return 0;
	}
	r->st = R_KEEP;
	memset(&r->meta, 0, sizeof r->meta);
	r->meta.weight[0] = hd->period > 0 ? hd->period : 1;
	if (!j->unit_kind)
		j->unit_kind = hd->period > 0 ? 2 : 1;
	r->meta.flags = FK_SAMPLE_TID | FK_SAMPLE_COMM;
	r->meta.tid = (int32_t)hd->tid;
	if (hd->pid >= 0) {
		r->meta.flags |= FK_SAMPLE_PID;
		r->meta.pid = (int32_t)hd->pid;
	}
	if (hd->has_time) {
		r->meta.flags |= FK_SAMPLE_TIME;
		r->meta.time_ns = hd->time_ns;
	}
	/* the comm frame: spaces become '_', with -PID or -PID/TID */
	j->names_len = 0;
	j->nfr = 0;
	if ((rc = names_put(j, hd->comm, hd->comm_len)) < 0)
		return rc;
	for (size_t i = 0; i < j->names_len; i++)
		if (is_ws((unsigned char)j->names[i]))
			j->names[i] = '_';
	r->java = hd->comm_len >= 4 && memcmp(hd->comm, "java", 4) == 0;
	k = 0;
	if (o->tid) {
		if (hd->pid >= 0)
			k = snprintf(num, sizeof num, "-%lld/%lld", hd->pid, hd->tid);
		else
			k = snprintf(num, sizeof num, "-?/%lld", hd->tid);
	} else if (o->pid) {
		if (hd->pid >= 0)
			k = snprintf(num, sizeof num, "-%lld", hd->pid);
		else
			k = snprintf(num, sizeof num, "-?");
	}
	if (k > 0 && (rc = names_put(j, num, (size_t)k)) < 0)
		return rc;
	r->pname_len = j->names_len;
	r->meta.comm_len = hd->comm_len;
	/* the comm frame is the root; frames are collected leaf first, so it
	 * is added as the last frame when the record ends: keep it at index 0
	 * by adding it now and reversing later */
	return frame_add(j, 0, r->pname_len, FK_ANNOT_NONE);
}

/*
 * The fast path for a record just started: hash its comm frame and the raw
 * text of its frame lines (up to the empty line) and, when that text was
 * seen before, repeat its stack with push_node without parsing a line.
 * Returns where parsing goes on, or NULL to parse the record line by line
 * (first sight, or lines the fast path does not judge: unindented ones).
 */
static const char *fast_record(struct job *j, struct record *r, const char *q,
                               const char *end, const char *nul, uint64_t *line)
{
	const char *bs = q;
	uint64_t n = 0;
	struct h128 hv;
	struct cache_entry *e;
	size_t len;

	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t k = (size_t)((nl ? nl : end) - q);
		if (k && q[k - 1] == '\r')
			k--;
		if (k == 0)
			break;
		if (!is_ws((unsigned char)q[0]) && q[0] != '#')
			return NULL;
		n++;
		q = nl ? nl + 1 : end;
	}
	if (nul && nul >= bs && nul < q)
		return NULL;
	hv = hash_bytes(j->names, r->pname_len);
	hash_update(&hv, bs, (size_t)(q - bs));
	len = r->pname_len + (size_t)(q - bs);
	e = cache_find(&j->raw, hv, len);
	if (slot_empty(e)) {
		r->raw = true;
		r->raw_hash = hv;
		r->raw_len = len;
		r->skips0 = j->nskips;
		return NULL;
	}
	struct fk_sample smp = r->meta;
	smp.comm = j->names;
	int rc = j->sh->h->push_node(j->sink, e->node, &smp);
	if (rc < 0) {
		job_error(j, *line, rc, "could not add a sample");
		return NULL;
	}
	*line += n;
	record_reset(j, r);
	return q;
}

/*
 * Parse buf[0..len): whole records (the chunk ends on a record boundary or
 * at the end of input).  Line numbers are relative to the chunk.
 */
static int job_run(struct job *j)
{
	const char *p = j->buf, *end = j->buf + j->len;
	struct record r;
	uint64_t line = 0;
	int rc = 0;

	/* one pass for NUL bytes: binary input is refused at its line */
	const char *nul = memchr(j->buf, '\0', j->len);

	memset(&r, 0, sizeof r);
	record_reset(j, &r);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n;
		line++;
		n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (nul && nul < le) {
			rc = job_error(j, line, FK_ERR_DATA,
			               "binary data (a NUL byte) in perf script text; give the text "
			               "that `perf script` prints, not a perf.data file");
			break;
		}
		if (n == 0) {
			if ((rc = record_end(j, &r)) < 0)
				break;
		} else if (p[0] == '#') {
			/* perf's header comments */
		} else {
			struct header hd;
			struct fline f;
			size_t after = 0;
			const char *s = p;
			size_t sn = n;
			if (r.st == R_IDLE) {
				/* the first line of a record is its header, even when
				 * perf padded the comm with leading blanks */
				while (sn && is_ws((unsigned char)*s))
					s++, sn--;
				if (sn == 0) {
					p = nl ? nl + 1 : end;
					continue;
				}
				after = match_header(s, sn, &hd);
			} else if (!is_ws((unsigned char)p[0])) {
				after = match_header(s, sn, &hd);
			}
			if (after) {
				if (r.st != R_IDLE && (rc = record_end(j, &r)) < 0)
					break;
				if ((rc = header_start(j, &r, s, sn, after, &hd, line)) < 0)
					break;
				if (r.st == R_KEEP && !j->sh->o->offcpu) {
					const char *q = fast_record(j, &r, nl ? nl + 1 : end, end, nul, &line);
					if (q) {
						p = q;
						continue;
					}
					if (j->rc < 0) {
						rc = j->rc;
						break;
					}
				}
			} else if (r.st == R_DROP) {
				/* a frame of a dropped record */
			} else if (r.st == R_KEEP && match_frame(p, n, &f)) {
				if ((rc = add_frame(j, &f, r.java)) < 0)
					break;
			} else if (r.st == R_IDLE && sn == 0) {
				/* blank-only line */
			} else {
				if ((rc = job_skip(j, line)) < 0)
					break;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (rc == 0)
		rc = record_end(j, &r);
	if (rc == FK_ERR_NOMEM)
		job_error(j, line, rc, "out of memory");
	else if (rc < 0 && j->rc == 0)
		job_error(j, line, rc, "could not add a sample");
	j->nlines = line;
	return rc;
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	job_run(j);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The first event, decided from the start of the input                */

static void find_first_event(struct shared *sh, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	bool idle = true;

	while (p < end && !sh->event) {
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
			after = match_header(s, sn, &hd);
			if (after) {
				idle = false;
				match_event(s, sn, after, &hd);
				if (hd.event && hd.event_len < sizeof sh->event_buf) {
					memcpy(sh->event_buf, hd.event, hd.event_len);
					sh->event_buf[hd.event_len] = '\0';
					sh->event = sh->event_buf;
					sh->event_len = hd.event_len;
					sh->event_defaulted = true;
				}
			} else {
				idle = false;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* ------------------------------------------------------------------ */
/* Reading chunks                                                       */

struct reader {
	const struct fk_host *h;
	struct fk_input *in;
	char *carry;          /* bytes after the last record boundary */
	size_t carry_len, carry_cap;
	size_t chunk;         /* target chunk size */
	bool eof;
	bool first;
};

/* Last record boundary in b[0..n): the offset just after an empty line
 * ("\n\n" or "\n\r\n"), or 0. */
static size_t last_boundary(const char *b, size_t n)
{
	for (size_t i = n; i-- > 1;) {
		if (b[i] != '\n')
			continue;
		if (b[i - 1] == '\n')
			return i + 1;
		if (b[i - 1] == '\r' && i >= 2 && b[i - 2] == '\n')
			return i + 1;
	}
	return 0;
}

/* Fill j->buf with the next chunk.  Returns 1 with data, 0 at the end,
 * or a negative status (reported). */
static int next_chunk(struct reader *rd, struct job *j)
{
	const struct fk_host *h = rd->h;
	size_t need = rd->chunk;

	if (rd->eof && rd->carry_len == 0)
		return 0;
	if (grow(h, (void **)&j->buf, &j->cap, need + rd->carry_len + 1, 1) < 0)
		return h->input_error(rd->in, 0, "out of memory");
	if (rd->carry_len)
		memcpy(j->buf, rd->carry, rd->carry_len);
	j->len = rd->carry_len;
	rd->carry_len = 0;
	for (;;) {
		while (!rd->eof && j->len < need) {
			ssize_t k = h->read(rd->in, j->buf + j->len, j->cap - j->len);
			if (k < 0)
				return (int)k;
			if (k == 0)
				rd->eof = true;
			j->len += (size_t)k;
		}
		if (rd->first) {
			rd->first = false;
			if (j->len >= 8 && memcmp(j->buf, "PERFILE2", 8) == 0)
				return h->input_error(rd->in, 0, "this is a perf.data file, not perf script "
				                      "text; convert it with `perf script -i FILE`");
		}
		if (rd->eof)
			return j->len > 0;
		size_t b = last_boundary(j->buf, j->len);
		if (b > 0) {
			size_t rest = j->len - b;
			if (grow(h, (void **)&rd->carry, &rd->carry_cap, rest + 1, 1) < 0)
				return h->input_error(rd->in, 0, "out of memory");
			memcpy(rd->carry, j->buf + b, rest);
			rd->carry_len = rest;
			j->len = b;
			return 1;
		}
		/* one record bigger than the buffer: grow it */
		if (j->cap >= RECORD_BYTES_MAX)
			return h->input_error(rd->in, 0, "a record (header plus frames, up to an empty "
			                      "line) is longer than %zu MiB", RECORD_BYTES_MAX >> 20);
		need = j->cap * 2;
		if (grow(h, (void **)&j->buf, &j->cap, need + 1, 1) < 0)
			return h->input_error(rd->in, 0, "out of memory");
	}
}

static void job_reset_results(struct job *j)
{
	j->nlines = 0;
	j->nskips = 0;
	j->rc = 0;
	j->err[0] = '\0';
	j->err_line = 0;
	j->unit_kind = 0;
}

static void job_free(const struct fk_host *h, struct job *j)
{
	cache_free(h, &j->cache);
	cache_free(h, &j->raw);
	h->free(j->buf);
	h->free(j->skips);
	h->free(j->names);
	h->free(j->fr);
	h->free(j->refs);
	for (size_t i = 0; i < j->npend; i++) {
		h->free(j->pend[i].names);
		h->free(j->pend[i].fr);
	}
	h->free(j->pend);
}

/* State of one parse: what the driver keeps between chunks. */
struct driver {
	const struct fk_host *h;
	struct fk_input *in;
	struct fk_sink *sink;
	uint64_t base;      /* lines before the next chunk to collect */
	uint64_t dropped;
	char dropped_ev[128];
	int unit_kind;      /* 0 unknown, 1 counts (no period), 2 periods */
};

/* Collect a finished job, in input order: its sink (when forked), skipped
 * lines, dropped records and error. */
static int finish_job(struct driver *d, struct job *j)
{
	const struct fk_host *h = d->h;
	int rc = 0, jr = 0;

	if (j->running) {
		pthread_join(j->th, NULL);
		j->running = false;
	}
	if (!j->pending)
		return 0;
	j->pending = false;
	if (j->sink && j->sink != d->sink) {
		jr = h->sink_join(j->rc < 0 ? NULL : d->sink, j->sink);
		j->sink = NULL;
	}
	if (!d->unit_kind)
		d->unit_kind = j->unit_kind;
	for (size_t i = 0; i < j->nskips; i++)
		h->input_skip(d->in, d->base + j->skips[i]);
	if (j->dropped && !d->dropped_ev[0])
		snprintf(d->dropped_ev, sizeof d->dropped_ev, "%s", j->dropped_ev);
	d->dropped += j->dropped;
	j->dropped = 0;
	j->dropped_ev[0] = '\0';
	if (j->rc < 0) {
		h->input_error(d->in, d->base + j->err_line, "%s", j->err);
		return j->rc;
	}
	d->base += j->nlines;
	if (jr < 0) { /* merging a chunk's tree only fails for want of memory */
		h->input_error(d->in, d->base, "out of memory");
		rc = FK_ERR_NOMEM;
	}
	return rc;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *vopts)
{
	static const struct perf_opts defaults = { 0 };
	const struct perf_opts *o = vopts ? vopts : &defaults;
	struct shared sh = { .h = h, .o = o };
	struct reader rd = { .h = h, .in = in, .first = true };
	struct driver d = { .h = h, .in = in, .sink = sink };
	struct job jobs[MAX_THREADS];
	unsigned threads = h->sink_threads ? h->sink_threads(sink) : 1;
	unsigned next = 0;
	const char *env = getenv("FK_PERF_CHUNK_BYTES");
	int rc = 0, r;

	/* tests make chunks tiny to cross many chunk boundaries */
	rd.chunk = CHUNK_BYTES;
	if (env && atol(env) >= 16)
		rd.chunk = (size_t)atol(env);
	sh.annotate_kernel = o->kernel || o->all;
	sh.annotate_jit = o->jit || o->all;
	if (o->event_filter && o->event_filter[0]) {
		sh.event = o->event_filter;
		sh.event_len = strlen(o->event_filter);
	}
	if (h->input_start && h->input_start(in) > 0) {
		/* A later shard (--shard K/N, K > 0) cannot see what came before
		 * its first byte: the first event type of the file, which decides
		 * the records kept by default, or the switch-outs --offcpu pairs
		 * with the switch-ins it sees. */
		if (o->offcpu)
			return h->input_error(in, 0, "--offcpu pairs each switch-in with an earlier "
			                      "switch-out, so it cannot read a shard; collapse the whole file");
		if (!sh.event)
			return h->input_error(in, 0, "a shard after the first cannot see the file's first "
			                      "event type; give --event-filter NAME with --shard");
	}
	if (o->offcpu || threads < 1)
		threads = 1; /* pairing switch-outs with switch-ins needs input order */
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	memset(jobs, 0, sizeof jobs);
	for (unsigned i = 0; i < threads; i++)
		jobs[i].sh = &sh;
	if (threads == 1 && (cache_init(h, &jobs[0].cache) < 0 || cache_init(h, &jobs[0].raw) < 0)) {
		rc = h->input_error(in, 0, "out of memory");
		goto out;
	}

	/*
	 * Round robin over the jobs: before a job takes the next chunk, its
	 * previous chunk is collected, so chunks are joined in input order.
	 * With one thread the chunk is parsed here, into the caller's sink,
	 * and the stack cache lives across chunks.
	 */
	for (;;) {
		struct job *j = &jobs[next];
		if ((rc = finish_job(&d, j)) < 0)
			goto out;
		r = next_chunk(&rd, j);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (!sh.event && !o->offcpu)
			find_first_event(&sh, j->buf, j->len);
		job_reset_results(j);
		j->pending = true;
		if (threads == 1) {
			j->sink = sink;
			job_run(j);
			continue;
		}
		cache_free(h, &j->cache);
		cache_free(h, &j->raw);
		j->sink = h->sink_fork(sink);
		if (!j->sink || cache_init(h, &j->cache) < 0 || cache_init(h, &j->raw) < 0) {
			rc = h->input_error(in, 0, "out of memory");
			goto out;
		}
		if (pthread_create(&j->th, NULL, job_thread, j) == 0)
			j->running = true;
		else
			job_run(j); /* no thread to be had: parse it here */
		next = (next + 1) % threads;
	}
	/* collect the chunks still out, in input order */
	for (unsigned k = 0; k < threads; k++) {
		int jr = finish_job(&d, &jobs[(next + k) % threads]);
		if (rc == 0)
			rc = jr;
	}
	if (rc < 0)
		goto out;

	if (o->offcpu) {
		h->sink_set_unit(sink, "us");
	} else if (d.unit_kind == 1) {
		h->sink_set_unit(sink, "samples");
	} else if (d.unit_kind == 2 && sh.event) {
		if (event_matches(sh.event, sh.event_len, "cpu-clock", 9) ||
		    event_matches(sh.event, sh.event_len, "task-clock", 10))
			h->sink_set_unit(sink, "ns");
		else
			h->sink_set_unit(sink, "events");
	}
	if (d.dropped)
		h->log(FK_LOG_WARN, "%s: kept only \"%.*s\" events (%s); dropped %llu record%s of "
		       "other events, the first being \"%s\" (choose with --event-filter NAME)",
		       h->input_name(in), (int)sh.event_len, sh.event,
		       sh.event_defaulted ? "the first event type in the input" : "--event-filter",
		       (unsigned long long)d.dropped, d.dropped == 1 ? "" : "s", d.dropped_ev);
	if (o->offcpu) {
		uint64_t unmatched = jobs[0].offcpu_unmatched;
		for (size_t i = 0; i < jobs[0].npend; i++)
			unmatched += jobs[0].pend[i].used;
		if (unmatched)
			h->log(FK_LOG_WARN, "%s: %llu switch-out%s had no later switch-in of the same "
			       "thread (still off CPU when the capture ended, or exited); that time is "
			       "not counted", h->input_name(in), (unsigned long long)unmatched,
			       unmatched == 1 ? "" : "s");
		if (jobs[0].offcpu_other)
			h->log(FK_LOG_INFO, "%s: --offcpu ignored %llu record%s that are not "
			       "sched:sched_switch events", h->input_name(in),
			       (unsigned long long)jobs[0].offcpu_other, jobs[0].offcpu_other == 1 ? "" : "s");
	}
out:
	for (unsigned i = 0; i < threads; i++) {
		struct job *j = &jobs[i];
		if (j->running) {
			pthread_join(j->th, NULL);
			j->running = false;
		}
		if (j->sink && j->sink != sink)
			h->sink_join(NULL, j->sink);
		job_free(h, j);
	}
	h->free(rd.carry);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Detection                                                            */

/*
 * perf script text: header lines (comm, pid, ...) each followed by frame
 * lines "  addr sym (module)" or an empty line.  Folded, dtrace and stap
 * text have neither shape.
 */
/* Shards (--shard K/N) start after a blank line: records are separated
 * by one, and a record never contains one. */
static ssize_t sync_records(const unsigned char *buf, size_t len, int eof)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return (ssize_t)(i + 2);
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return (ssize_t)(i + 3);
	}
	return eof ? (ssize_t)len : 0;
}

static int probe(const unsigned char *buf, size_t len)
{
	const char *p = (const char *)buf, *end = p + len;
	unsigned headers = 0, frames = 0, other = 0, lines = 0;
	bool idle = true, perf_comment = false;

	if (len >= 8 && memcmp(buf, "PERFILE2", 8) == 0)
		return 50; /* a perf.data file: parse() explains what to do */
	while (p < end && lines < 400) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		if (!nl)
			break;
		n = (size_t)(nl - p);
		if (n && p[n - 1] == '\r')
			n--;
		lines++;
		if (memchr(p, '\0', n))
			return 0;
		if (n == 0) {
			idle = true;
		} else if (p[0] == '#') {
			if (n >= 9 && (memcmp(p, "# ========", 10 < n ? 10 : n) == 0 ||
			               memcmp(p, "# captured on", 13 < n ? 13 : n) == 0 ||
			               memcmp(p, "# cmdline", 9) == 0))
				perf_comment = true;
		} else {
			struct header hd;
			struct fline f;
			const char *s = p;
			size_t sn = n;
			if (idle)
				while (sn && is_ws((unsigned char)*s))
					s++, sn--;
			if ((idle || !is_ws((unsigned char)p[0])) && match_header(s, sn, &hd)) {
				headers++;
				idle = false;
			} else if (!idle && match_frame(p, n, &f)) {
				frames++;
			} else {
				other++;
			}
		}
		p = nl + 1;
	}
	if (headers == 0)
		return perf_comment ? 40 : 0;
	if (other * 4 > headers + frames)
		return 0;
	if (frames > 0)
		return 90;
	/* records without stacks (perf record without -g) */
	return perf_comment ? 80 : headers >= 3 && other == 0 ? 30 : 0;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "pid", "0", struct perf_opts, pid,
	          "add the PID to the process name (comm-PID)"),
	FK_OPTION(FK_OPT_FLAG, "tid", "0", struct perf_opts, tid,
	          "add the PID and TID to the process name (comm-PID/TID)"),
	FK_OPTION(FK_OPT_FLAG, "kernel", "0", struct perf_opts, kernel,
	          "annotate kernel frames with _[k]"),
	FK_OPTION(FK_OPT_FLAG, "jit", "0", struct perf_opts, jit,
	          "annotate JIT frames (/tmp/perf-PID.map) with _[j]"),
	FK_OPTION(FK_OPT_FLAG, "all", "0", struct perf_opts, all,
	          "all annotations (--kernel --jit)"),
	FK_OPTION(FK_OPT_FLAG, "addrs", "0", struct perf_opts, addrs,
	          "keep the address of unknown frames: [module <addr>]"),
	FK_OPTION(FK_OPT_STRING, "event-filter", NULL, struct perf_opts, event_filter,
	          "keep only this event (default: the first event in the input)"),
	FK_OPTION(FK_OPT_FLAG, "offcpu", "0", struct perf_opts, offcpu,
	          "sched:sched_switch events as off-CPU time in microseconds"),
	FK_OPTION_END,
};

static struct fk_input_plugin plugin = {
	.h = {
		.name = "perf",
		.version = "1.0",
		.description = "perf script text (stackcollapse-perf.pl), with --offcpu for sched_switch",
		.options = options,
		.options_size = sizeof(struct perf_opts),
	},
	.probe = probe,
	.sync = sync_records,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
