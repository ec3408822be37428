/*
 * Input plugin "folded": the `a;b;c 12` format flamegraph.pl reads, with
 * its grammar exactly (lib/folded owns it): the count is \d+(\.\d*)? at the very end of the line
 * after one whitespace character; a second count before it makes the line
 * differential (baseline, current).  Fields split on ';', trailing empty
 * fields dropped (as Perl's split does).  Lines that do not match are
 * skipped and counted.
 *
 * Speed: the whole stack text of each line is looked up in a cache of the
 * stacks seen so far (hash + memcmp) and repeated with push_node, so a
 * repeated stack costs one hash of its bytes, not one intern per frame.
 */
#define _GNU_SOURCE /* memrchr */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "folded/fkfolded.h"
#include "vector/fkvector.h"

#define CACHE_BYTES_MAX ((size_t)16 << 20) /* per worker thread */

struct entry {
	uint64_t hash;
	char *key;    /* NULL: empty slot */
	size_t len;
	fk_node_t node;
};

struct cache {
	const struct fk_host *h;
	struct entry *v;
	size_t mask, n, bytes;
	bool full;
	bool off;         /* stacks rarely repeat: not worth a lookup */
	size_t lookups, hits;
};

/* After this many lines, a cache hit by fewer than 1 in 16 is switched
 * off: with mostly distinct stacks it only costs a hash, a probe and a
 * copy of every line. */
#define CACHE_TRIAL 65536

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* wyhash-style: 16 bytes per multiply.  Equal keys are still confirmed
 * with memcmp, so the hash only has to spread well. */
static inline uint64_t hash_bytes(const char *p, size_t n)
{
	const uint64_t k1 = 0xa0761d6478bd642full, k2 = 0xe7037ed1a0b428dbull;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, a, b;

	while (n >= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		h = mix(a ^ k1, b ^ h);
		p += 16;
		n -= 16;
	}
	a = b = 0;
	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
	} else if (n) {
		memcpy(&a, p, n);
	}
	return mix(h ^ k2 ^ a, b ^ k1);
}

static void cache_free(struct cache *c)
{
	if (!c->v) /* never allocated: parse() ran out of memory first */
		return;
	for (size_t i = 0; i <= c->mask; i++)
		c->h->free(c->v[i].key);
	c->h->free(c->v);
}

static struct entry *cache_find(struct cache *c, uint64_t h, const char *k, size_t n)
{
	size_t j = h & c->mask;
	for (;;) {
		struct entry *e = &c->v[j];
		if (!e->key)
			return e;
		if (e->hash == h && e->len == n && memcmp(e->key, k, n) == 0)
			return e;
		j = (j + 1) & c->mask;
	}
}

static int cache_grow(struct cache *c)
{
	size_t nmask = c->mask * 2 + 1;
	struct entry *nv = c->h->alloc((nmask + 1) * sizeof *nv);
	if (!nv)
		return FK_ERR_NOMEM;
	memset(nv, 0, (nmask + 1) * sizeof *nv);
	for (size_t i = 0; i <= c->mask; i++) {
		if (!c->v[i].key)
			continue;
		size_t j = c->v[i].hash & nmask;
		while (nv[j].key)
			j = (j + 1) & nmask;
		nv[j] = c->v[i];
	}
	c->h->free(c->v);
	c->v = nv;
	c->mask = nmask;
	return 0;
}

struct ctx {
	const struct fk_host *h;
	struct cache *caches; /* one per worker thread */
};

static int parse_lines(void *arg, unsigned worker, struct fk_input *in, struct fk_sink *sink)
{
	struct ctx *x = arg;
	const struct fk_host *h = x->h;
	struct cache *c = &x->caches[worker];
	struct fk_frameref *fr = NULL;
	size_t frcap = 0;
	const char *line;
	size_t len;
	int r, rc = 0;

	while ((r = h->getline(in, &line, &len)) > 0) {
		struct fk_sample smp;
		double w[2];
		int two;
		long sl = fk_folded_line(line, len, w, &two);
		struct entry *e;
		uint64_t hv;

		if (sl < 0) {
			if (len > 0)
				h->input_skip(in, h->input_lineno(in));
			continue;
		}
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = w[0];
		if (two) {
			/* differential: first count is the baseline */
			smp.flags = FK_SAMPLE_SERIES;
			smp.weight[1] = w[1];
		}
		e = NULL;
		hv = 0;
		if (!c->off) {
			hv = hash_bytes(line, (size_t)sl);
			e = cache_find(c, hv, line, (size_t)sl);
			c->lookups++;
			if (e->key) {
				c->hits++;
				rc = h->push_node(sink, e->node, &smp);
				if (rc < 0)
					break;
				continue;
			}
			if (c->lookups == CACHE_TRIAL && c->hits * 16 < c->lookups)
				c->off = true;
		}
		/* split on ';', dropping trailing empty fields (lib/folded) */
		size_t nf = 0, pos = 0, flen, end = fk_folded_trim(line, (size_t)sl);
		const char *f;
		while ((f = fk_folded_next(line, end, &pos, &flen)) != NULL) {
			if (fk_vector_grow((void **)&fr, &frcap, nf + 1, sizeof *fr, h->realloc) < 0) {
				rc = FK_ERR_NOMEM;
				goto out;
			}
			memset(&fr[nf], 0, sizeof fr[nf]);
			fr[nf].name = f;
			fr[nf].len = flen;
			nf++;
		}
		smp.frames = fr;
		smp.nframes = nf;
		fk_node_t node;
		rc = h->push(sink, &smp, &node);
		if (rc < 0)
			break;
		if (node != FK_NODE_NONE && e && !c->full) {
			char *k = h->alloc((size_t)sl + 1);
			if (!k) {
				rc = FK_ERR_NOMEM;
				break;
			}
			memcpy(k, line, (size_t)sl);
			e->key = k;
			e->len = (size_t)sl;
			e->hash = hv;
			e->node = node;
			c->n++;
			c->bytes += (size_t)sl + sizeof *e;
			if (c->bytes > CACHE_BYTES_MAX)
				c->full = true;
			if (c->n * 2 > c->mask && cache_grow(c) < 0) {
				rc = FK_ERR_NOMEM;
				break;
			}
		}
	}
	if (r < 0 && rc == 0)
		rc = r;
out:
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, h->input_lineno(in), "out of memory");
	h->free(fr);
	return rc;
}

/* Chunks end after their last newline. */
static size_t boundary(void *arg, const char *buf, size_t len)
{
	const char *nl = memrchr(buf, '\n', len);
	(void)arg;
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *opts)
{
	static const struct fk_chunk_ops ops = { boundary, parse_lines };
	unsigned n = h->sink_threads(sink);
	struct ctx x = { h, NULL };
	int rc;

	(void)opts;
	x.caches = h->alloc(n * sizeof *x.caches);
	if (!x.caches)
		return h->input_error(in, 0, "out of memory");
	memset(x.caches, 0, n * sizeof *x.caches);
	for (unsigned i = 0; i < n; i++) {
		x.caches[i].h = h;
		x.caches[i].mask = 4095;
		x.caches[i].v = h->alloc((x.caches[i].mask + 1) * sizeof *x.caches[i].v);
		if (!x.caches[i].v) {
			rc = h->input_error(in, 0, "out of memory");
			goto out;
		}
		memset(x.caches[i].v, 0, (x.caches[i].mask + 1) * sizeof *x.caches[i].v);
	}
	/* An engine older than ABI 1.1 has no parse_chunks: parse on this
	 * thread, the way parse_chunks does with one thread. */
	if (FK_HOST_HAS(h, parse_chunks))
		rc = h->parse_chunks(in, sink, &ops, &x);
	else
		rc = ops.parse(&x, 0, in, sink);
out:
	for (unsigned i = 0; i < n; i++)
		cache_free(&x.caches[i]);
	h->free(x.caches);
	return rc;
}

/* A folded line: a stack and its count (or the two of a differential
 * line), the stack not itself ending in a number.  Three numbers or more at
 * the end make a table's row (a GHC .prof cost-centre tree, an xdebug
 * trace), never a stack. */
/* How many numbers (-?\d+(\.\d*)?) end s[0..n), separated by blanks of
 * any width, counted up to three: a table aligned in columns ("MAIN  MAIN
 * <built-in>  337  0  0.0  0.0  100.0  100.0  0  728") has runs of them. */
static int trailing_numbers(const char *s, size_t n)
{
	int k = 0;

	while (k < 3) {
		size_t e = n;

		while (e > 0 && s[e - 1] >= '0' && s[e - 1] <= '9')
			e--;
		if (e > 0 && s[e - 1] == '.') {
			size_t d = --e;
			while (e > 0 && s[e - 1] >= '0' && s[e - 1] <= '9')
				e--;
			if (e == d)
				break; /* "x." is no number */
		} else if (e == n) {
			break;
		}
		if (e > 0 && s[e - 1] == '-')
			e--;
		if (e == 0 || (s[e - 1] != ' ' && s[e - 1] != '\t'))
			break;
		k++;
		while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		n = e;
	}
	return k;
}

static bool folded_line(const char *s, size_t n)
{
	double w[2], x;
	int two;
	long sl;

	if (fk_folded_count(s, n, &x) < 0) /* " 7": the root's own weight */
		return false;
	if (trailing_numbers(s, n) >= 3)
		return false;
	sl = fk_folded_line(s, n, w, &two);
	return !(two && sl > 0 && fk_folded_count(s, (size_t)sl, &x) >= 0);
}

/* The window opens a JSON document: '{' then a key or '}', or '[' then an
 * object.  Folded text never starts so, and a JSON export on one line
 * longer than the window (Safari's timeline) has ';' in its strings. */
static bool json_start(const unsigned char *buf, size_t len)
{
	size_t i = 0;
	unsigned char open;

	while (i < len && (buf[i] == ' ' || (buf[i] >= '\t' && buf[i] <= '\r')))
		i++;
	if (i == len || (buf[i] != '{' && buf[i] != '['))
		return false;
	open = buf[i++];
	while (i < len && (buf[i] == ' ' || (buf[i] >= '\t' && buf[i] <= '\r')))
		i++;
	return i < len && (open == '{' ? buf[i] == '"' || buf[i] == '}' : buf[i] == '{');
}

/* Folded text: printable lines ending in " <digits>".  Scores by the share
 * of complete lines that match: all of them, or all but one in five (a
 * stray line flamegraph.pl skips); fewer is some other text with numbers. */
static int probe(const unsigned char *buf, size_t len)
{
	size_t i = 0, lines = 0, good = 0;

	if (json_start(buf, len))
		return 0;
	while (i < len && lines < 200) {
		const unsigned char *nl = memchr(buf + i, '\n', len - i);
		size_t n;
		if (!nl)
			break; /* the last, maybe cut, line is not judged */
		n = (size_t)(nl - (buf + i));
		if (n && buf[i + n - 1] == '\r')
			n--;
		if (n) {
			lines++;
			if (folded_line((const char *)buf + i, n))
				good++;
		}
		i = (size_t)(nl - buf) + 1;
	}
	if (lines == 0 && len >= 65536 && i == 0) {
		/* One line longer than the window (a deep stack): no count to
		 * judge, but frames joined by ';' and no other format's marks. */
		return memchr(buf, ';', len) && !memchr(buf, '\0', len) ? 20 : 0;
	}
	if (lines == 0 && len > 0 && len < 65536) {
		double w;
		size_t n = len;
		while (n && (buf[n - 1] == '\r'))
			n--;
		return fk_folded_count((const char *)buf, n, &w) > 0 ? 60 : 0;
	}
	if (lines == 0)
		return 0;
	if (good == lines)
		return 60;
	return (lines - good) * 4 <= good ? 30 : 0;
}

/* Every line is one sample, so a shard starts after the first newline at or
 * after the nominal cut point (buf[0] is the byte before it). */
static ssize_t sync_lines(const unsigned char *buf, size_t len, int eof)
{
	const unsigned char *nl = memchr(buf, '\n', len);

	if (nl)
		return (ssize_t)(nl - buf) + 1;
	return eof ? (ssize_t)len : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "folded",
		.version = "1.0",
		.description = "folded stacks: 'a;b;c 12' lines (flamegraph.pl's input)",
	},
	.probe = probe,
	.parse = parse,
	.sync = sync_lines,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
