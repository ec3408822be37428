/*
 * Parallel parsing of one input (host->parse_chunks), one of two ways.
 *
 * Ranges, for a regular uncompressed file whose plugin has sync() (what
 * --shard cuts with): the workers read the file themselves, each its own
 * range, and take the back half of another's range when theirs is done
 * (see "ranges" below).  Nothing is handed from thread to thread while
 * parsing, so two threads parse a file about 1.7 times as fast as one.
 *
 * Chunks, for anything else (a pipe, gzip, a plugin without sync): the
 * calling thread reads the input in chunks of CHUNK bytes, cuts each
 * after its last complete record (the plugin's boundary callback) and
 * queues it; worker threads parse chunks into one forked sink each.  The
 * calling thread retires chunks strictly in input order: it adds each
 * chunk's line count to the running line number, translates the chunk's
 * skipped lines and first error to whole-file line numbers, and reports
 * the first error in input order.  At most 2 x threads chunks are in
 * flight, so memory is bounded by the chunk size, not by the input size.
 * Chunks are read with read() into buffers kept across uses: mapping each
 * chunk's file range instead was slower, since every page of a new mapping
 * costs a fault (see input.c).
 *
 * A chunk's or range's host->input_start is its offset in the input.  The
 * forked sinks are joined in worker order at the end; weights are sums,
 * so the merged tree does not depend on which worker took which part.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fk.h"

#define CHUNK ((size_t)2 << 20)
/* Inputs smaller than this are not worth threads (see below). */
#define SERIAL_BELOW ((uint64_t)32 << 20)
/* A range's read buffer, and the least a worker takes from another's
 * range (less is not worth the cut). */
#define BUFSZ ((size_t)1 << 20)
#define STEAL_MIN ((size_t)1 << 20)
/* How far past a split point a record boundary is looked for. */
#define CUT_WINDOW_MAX ((size_t)16 << 20)

struct job {
	char *data;
	size_t len, cap;
	struct fk_input in;  /* the chunk as an input */
	int rc;
	bool done;
};

struct pool {
	const struct fk_chunk_ops *ops;
	void *ctx;
	struct fk_ctx *cx;   /* the context of the input's parse: the workers serve it */
	struct fk_input *parent;
	struct fk_sink **sinks;
	unsigned nthreads;
	struct job *ring;    /* 2 x nthreads slots */
	size_t nslots;
	size_t head, next, tail; /* retire at head, hand out at next, fill at tail */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
};

struct worker {
	struct pool *pool;
	unsigned id;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	FK_CTX_SERVE(cx, p->cx);

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->next == p->tail)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->next == p->tail && p->stop)
			break;
		struct job *j = &p->ring[p->next++ % p->nslots];
		pthread_mutex_unlock(&p->mu);
		j->rc = fk_call_chunk_parse(p->ops, p->ctx, w->id, &j->in, p->sinks[w->id]);
		if (j->rc == 0 && j->in.error)
			j->rc = j->in.error;
		pthread_mutex_lock(&p->mu);
		j->done = true;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static size_t chunk_bytes(void)
{
	const char *env = getenv("FLAMEKIT_CHUNK_BYTES"); /* tests use tiny chunks */
	return env && atol(env) > 0 ? (size_t)atol(env) : CHUNK;
}

/* Files smaller than this are parsed on the calling thread; not with
 * FLAMEKIT_CHUNK_BYTES, whose small files must cross chunk boundaries. */
static uint64_t serial_below(void)
{
	return getenv("FLAMEKIT_CHUNK_BYTES") ? 0 : SERIAL_BELOW;
}

/* Read the next chunk into j's buffer (kept across uses, so no page is
 * faulted in twice): the carried-over tail of the previous chunk, then
 * fresh input, cut after the last complete record; the rest is carried. */
static int read_chunk(struct fk_input *in, const struct fk_chunk_ops *ops, void *ctx,
                      struct fk_buf *carry, struct job *j, bool *eof)
{
	size_t chunk = chunk_bytes(), len = 0, cut, want;

	want = chunk > carry->len ? chunk : carry->len * 2;

	for (;;) {
		if (j->cap < want) {
			char *d = fk_realloc(j->data, want);
			if (!d)
				return FK_ERR_NOMEM;
			j->data = d;
			j->cap = want;
		}
		if (len == 0 && carry->len) {
			memcpy(j->data, carry->data, carry->len);
			len = carry->len;
			carry->len = 0;
		}
		while (len < want && !*eof) {
			ssize_t r = fk_input_read(in, j->data + len, want - len);
			if (r < 0)
				return (int)r;
			if (r == 0)
				*eof = true;
			len += (size_t)r;
		}
		cut = *eof ? len : fk_call_boundary(ops, ctx, j->data, len);
		if (cut > 0 || *eof)
			break;
		if (want > ((size_t)1 << 31)) {
			fk_log(FK_LOG_ERROR, "%s: a record longer than 2 GiB", in->name);
			return FK_ERR_LIMIT;
		}
		want *= 2; /* one record bigger than the chunk: read more */
	}
	if (fk_buf_append(carry, j->data + cut, len - cut) < 0)
		return FK_ERR_NOMEM;
	memset(&j->in, 0, sizeof j->in);
	j->len = cut;
	j->in.name = in->name;
	j->in.fd = -1;
	j->in.buf = j->data;
	j->in.cap = j->in.end = cut;
	j->in.eof = true;
	j->in.chunk = true;
	j->rc = 0;
	j->done = false;
	return 0;
}

/* Fold a finished chunk or range `c`, parsed with status rc, into the
 * parent input; returns rc. */
static int retire(struct fk_input *parent, struct fk_input *c, int rc, uint64_t *base)
{
	for (uint64_t k = 0; k < c->skipped; k++)
		fk_input_skip(parent, k < 5 ? *base + c->skipped_first[k] : 0);
	if (rc < 0 && c->err_msg) {
		parent->chunk = false;
		fk_input_error(parent, c->err_line ? *base + c->err_line : 0, "%s", c->err_msg);
	} else if (rc < 0 && c->err_lost && !parent->error) {
		/* the chunk's message did not fit in memory either (as parts.c) */
		fk_log(FK_LOG_ERROR, "%s: out of memory", parent->name);
		parent->error = FK_ERR_NOMEM;
	} else if (rc < 0 && !parent->error) {
		parent->error = rc;
	}
	*base += c->lineno;
	fk_free(c->err_msg);
	c->err_msg = NULL;
	return rc;
}

/* One forked sink per worker (the parse's sinks): 0 or FK_ERR_NOMEM, with
 * the sinks forked so far left in `sinks` for join_sinks. */
static int fork_sinks(struct fk_sink *sink, struct fk_sink **sinks, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!(sinks[i] = fk_host.sink_fork(sink)))
			return FK_ERR_NOMEM;
	return 0;
}

/* Join the workers' sinks into `sink` in worker order (only free them when
 * rc < 0); returns rc, or the first join's error. */
static int join_sinks(struct fk_sink *sink, struct fk_sink **sinks, unsigned n, int rc)
{
	for (unsigned i = 0; sinks && i < n; i++) {
		int r = fk_host.sink_join(rc == 0 ? sink : NULL, sinks[i]);
		if (r < 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/* ---- ranges: a regular file read by the workers themselves ----
 *
 * The file is cut into one range per worker, at record boundaries the
 * plugin's sync() finds near the even split points.  Each worker reads its
 * range with pread() into a buffer of its own, one buffer at a time, and
 * parses it as it comes, the way one thread parses a whole file: no chunk
 * is handed from the reading thread to a worker (each costs a wake-up and
 * a copy out of another core's cache), and each worker meets the stacks of
 * one stretch of the file, not of every part of it.  A worker whose range
 * is done takes the back half of the range with the most left (cut where
 * sync() finds a boundary past what its owner has read), so a slower core
 * or a denser part of the file does not leave the other idle.  Once every
 * worker is done, the ranges are retired in file order, as chunks are. */

struct fk_range {
	struct rpool *pool;
	uint64_t start, end;   /* file offsets; end moves back when the tail is taken */
	uint64_t pos;          /* the next offset its owner reads */
	struct fk_input in;    /* the range as an input */
	int rc;
};

struct rpool {
	const struct fk_chunk_ops *ops;
	void *ctx;
	struct fk_ctx *cx;     /* the context of the input's parse: the workers serve it */
	struct fk_input *parent;
	const struct fk_plugin *sync; /* the input plugin whose sync() cuts */
	struct fk_sink **sinks;
	struct fk_range **v;   /* every range, in the order they were made */
	size_t n, cap;
	struct fk_range **cur; /* per worker: the range it parses, or NULL */
	uint64_t base_off;     /* file offset of the first byte to parse */
	uint64_t stop_after;   /* the start of the first failed range: those after it stop */
	size_t readsz, steal_min;
	pthread_mutex_t mu;
};

struct rworker {
	struct rpool *pool;
	unsigned id, n;
};

size_t fk_range_claim(struct fk_range *r, size_t cap, uint64_t *off)
{
	struct rpool *p = r->pool;

	pthread_mutex_lock(&p->mu);
	if (cap > r->end - r->pos)
		cap = (size_t)(r->end - r->pos);
	if (r->start > p->stop_after)
		cap = 0; /* an earlier range failed: what comes after it is not needed */
	*off = r->pos;
	r->pos += cap;
	if (cap)
		fk_input_note_read(p->parent, cap);
	pthread_mutex_unlock(&p->mu);
	return cap;
}

void fk_range_short(struct fk_range *r, uint64_t off)
{
	pthread_mutex_lock(&r->pool->mu);
	r->pos = r->end = off; /* the file shrank while it was read */
	pthread_mutex_unlock(&r->pool->mu);
}

uint64_t fk_range_left(struct fk_range *r)
{
	uint64_t left;

	pthread_mutex_lock(&r->pool->mu);
	left = r->end - r->pos;
	pthread_mutex_unlock(&r->pool->mu);
	return left;
}

/* The first record boundary at or after offset o (o > base_off) and before
 * `end`, or `end` when there is none near enough.  A read error or a sync()
 * that cannot answer only means no cut: the range's owner reads those bytes
 * itself. */
static uint64_t find_cut(struct rpool *p, uint64_t o, uint64_t end)
{
	uint64_t cut;

	return fk_sync_cut(p->parent->fd, p->sync, o, end, CUT_WINDOW_MAX, &cut) > 0 && cut < end
	               ? cut : end;
}

/* A new range [start, end); NULL without memory.  It reads into the
 * buffer of `done`, a range its worker has finished, when there is one:
 * a fresh buffer costs a page fault a page. */
static struct fk_range *range_new(struct rpool *p, uint64_t start, uint64_t end,
                                  struct fk_range *done)
{
	struct fk_range *r;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct fk_range **v = fk_realloc(p->v, cap * sizeof *v);
		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	if (!(r = fk_calloc(1, sizeof *r)))
		return NULL;
	if (done && done->in.buf) {
		r->in.buf = done->in.buf;
		r->in.cap = done->in.cap;
		done->in.buf = NULL;
		done->in.cap = 0;
	} else if ((r->in.buf = fk_malloc(p->readsz)) != NULL) {
		r->in.cap = p->readsz;
	} else {
		fk_free(r);
		return NULL;
	}
	r->pool = p;
	r->start = r->pos = start;
	r->end = end;
	r->in.name = p->parent->name;
	r->in.fd = p->parent->fd;
	r->in.chunk = true;
	r->in.range = r;
	r->in.last_byte = -1;
	r->in.shard_start = p->parent->shard_start + (start - p->base_off);
	p->v[p->n++] = r;
	return r;
}

/* Worker self's next range: the back half of the range with the most left,
 * or NULL when none has enough left to be worth it.  `done` is the range
 * self finished (its buffer is reused). */
static struct fk_range *take_tail(struct rpool *p, unsigned self, unsigned n, struct fk_range *done)
{
	for (;;) {
		struct fk_range *best = NULL, *r = NULL;
		uint64_t most = 0, o, end, cut;
		unsigned owner = 0;
		bool nomem = false;

		pthread_mutex_lock(&p->mu);
		for (unsigned k = 0; k < n && p->stop_after == UINT64_MAX; k++) {
			struct fk_range *c = p->cur[k];
			if (k != self && c && c->end - c->pos > most) {
				best = c;
				owner = k;
				most = c->end - c->pos;
			}
		}
		if (!best || most < 2 * (uint64_t)p->steal_min) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		o = best->pos + most / 2;
		end = best->end;
		pthread_mutex_unlock(&p->mu);
		cut = find_cut(p, o, end);
		if (cut >= end)
			return NULL; /* no boundary in the back half */
		pthread_mutex_lock(&p->mu);
		/* the owner may have read past the cut meanwhile, or finished */
		if (p->cur[owner] == best && cut >= best->pos && cut < best->end &&
		    p->stop_after == UINT64_MAX) {
			if ((r = range_new(p, cut, best->end, done)) != NULL) {
				best->end = cut;
				p->cur[self] = r;
			} else {
				nomem = true;
			}
		}
		pthread_mutex_unlock(&p->mu);
		if (r || nomem)
			return r; /* without memory, this worker stops taking work */
	}
}

/* Parse range r, worker w's, into w's sink; a failure stops the ranges
 * after it. */
static void parse_range(struct rpool *p, unsigned w, struct fk_range *r)
{
	int rc = fk_call_chunk_parse(p->ops, p->ctx, w, &r->in, p->sinks[w]);

	if (rc == 0 && r->in.error)
		rc = r->in.error;
	pthread_mutex_lock(&p->mu);
	r->rc = rc;
	p->cur[w] = NULL;
	if (rc < 0 && r->start < p->stop_after)
		p->stop_after = r->start;
	pthread_mutex_unlock(&p->mu);
}

static void *rworker_main(void *arg)
{
	struct rworker *w = arg;
	struct rpool *p = w->pool;
	struct fk_range *r = p->cur[w->id]; /* set before this thread started */
	FK_CTX_SERVE(cx, p->cx);

	while (r) {
		parse_range(p, w->id, r);
		r = take_tail(p, w->id, w->n, r);
	}
	return NULL;
}

static int by_start(const void *a, const void *b)
{
	const struct fk_range *x = *(struct fk_range *const *)a, *y = *(struct fk_range *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Where parse_chunks reads a file by ranges: a regular uncompressed file
 * whose plugin has sync(), with a file offset to start from. */
static bool by_ranges(struct fk_input *in, uint64_t *from, uint64_t *to)
{
	struct stat st;
	off_t pos;

	if (!in->regular || in->gz || in->chunk || in->range || in->fd < 0 || !in->plugin ||
	    !fk_plugin_has(in->plugin, FK_CB_SYNC) || (pos = lseek(in->fd, 0, SEEK_CUR)) < 0 ||
	    fstat(in->fd, &st) < 0 || (uint64_t)pos < in->end - in->start)
		return false;
	*from = (uint64_t)pos - (in->end - in->start);
	*to = in->limited ? (uint64_t)pos + in->limit : (uint64_t)st.st_size;
	return *to > *from; /* nothing left: the chunk path finds the end at once */
}

static int parse_ranges(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops,
                        void *ctx, unsigned n, uint64_t from, uint64_t to)
{
	struct rpool p;
	struct rworker *ws = NULL;
	pthread_t *tids = NULL;
	unsigned started = 0;
	uint64_t base = in->lineno, prev = from;
	int rc = 0;

	memset(&p, 0, sizeof p);
	p.ops = ops;
	p.ctx = ctx;
	p.cx = fk_ctx_current();
	p.parent = in;
	p.sync = in->plugin;
	p.base_off = from;
	p.stop_after = UINT64_MAX;
	/* tests' tiny chunks make tiny reads and cuts too */
	p.readsz = getenv("FLAMEKIT_CHUNK_BYTES") ? chunk_bytes() : BUFSZ;
	p.steal_min = getenv("FLAMEKIT_CHUNK_BYTES") ? p.readsz : STEAL_MIN;
	p.sinks = fk_calloc(n, sizeof *p.sinks);
	p.cur = fk_calloc(n, sizeof *p.cur);
	ws = fk_calloc(n, sizeof *ws);
	tids = fk_calloc(n, sizeof *tids);
	if (!p.sinks || !p.cur || !ws || !tids) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if ((rc = fork_sinks(sink, p.sinks, n)) < 0)
		goto out;
	/* one range per worker, cut near the even split points */
	for (unsigned k = 0; k < n; k++) {
		uint64_t end = to;
		if (k + 1 < n) {
			uint64_t o = from + (uint64_t)((unsigned __int128)(to - from) * (k + 1) / n);
			end = o > prev ? find_cut(&p, o, to) : prev;
		}
		if (end > prev && !(p.cur[k] = range_new(&p, prev, end, NULL))) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
		prev = end > prev ? end : prev;
	}
	pthread_mutex_init(&p.mu, NULL);
	for (; started < n; started++) {
		ws[started].pool = &p;
		ws[started].id = started;
		ws[started].n = n;
		if (pthread_create(&tids[started], NULL, rworker_main, &ws[started]) != 0)
			break;
	}
	/* the ranges of workers that did not start: parsed here, each into
	 * its worker's sink */
	for (unsigned k = started; k < n; k++) {
		pthread_mutex_lock(&p.mu);
		struct fk_range *r = p.cur[k];
		pthread_mutex_unlock(&p.mu);
		if (r)
			parse_range(&p, k, r);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&p.mu);
	/* retire in file order; what follows the first failed range is not reported */
	if (p.n > 1)
		qsort(p.v, p.n, sizeof *p.v, by_start);
	for (size_t i = 0; i < p.n && rc == 0; i++)
		rc = retire(in, &p.v[i]->in, p.v[i]->rc, &base);
	in->lineno = base;
	/* the parent input is read to its end */
	in->start = in->end = 0;
	in->eof = true;
	if (in->limited)
		in->limit = 0;
out:
	rc = join_sinks(sink, p.sinks, n, rc);
	for (size_t i = 0; i < p.n; i++) {
		fk_free(p.v[i]->in.buf);
		fk_free(p.v[i]->in.err_msg);
		fk_free(p.v[i]);
	}
	fk_free(p.v);
	fk_free(p.cur);
	fk_free(p.sinks);
	fk_free(ws);
	fk_free(tids);
	if (rc == FK_ERR_NOMEM && !in->error)
		fk_input_error(in, 0, "out of memory");
	return rc;
}

int fk_parse_chunks(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops, void *ctx)
{
	struct pool p;
	struct worker *ws = NULL;
	pthread_t *tids = NULL;
	struct fk_buf carry = { 0 };
	unsigned n = sink->threads, started = 0;
	uint64_t base = in->lineno, handed = 0, from, to;
	bool eof = false;
	int rc = 0;

	/* A file of a few chunks is parsed on this thread: the workers' sinks
	 * must be merged at the end, and with mostly distinct stacks that
	 * merge costs as much as the parse it saved (100,000 distinct stacks
	 * in 15 MB rendered slower on two threads than on one). */
	if (n <= 1 || sink->p->keep_samples || fk_input_left(in) < serial_below())
		return fk_call_chunk_parse(ops, ctx, 0, in, sink);
	if (by_ranges(in, &from, &to))
		return parse_ranges(in, sink, ops, ctx, n, from, to);
	memset(&p, 0, sizeof p);
	p.ops = ops;
	p.ctx = ctx;
	p.cx = fk_ctx_current();
	p.parent = in;
	p.nthreads = n;
	p.nslots = 2 * (size_t)n;
	p.ring = fk_calloc(p.nslots, sizeof *p.ring);
	p.sinks = fk_calloc(n, sizeof *p.sinks);
	ws = fk_calloc(n, sizeof *ws);
	tids = fk_calloc(n, sizeof *tids);
	if (!p.ring || !p.sinks || !ws || !tids) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if ((rc = fork_sinks(sink, p.sinks, n)) < 0)
		goto out;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.work, NULL);
	pthread_cond_init(&p.done, NULL);
	for (; started < n; started++) {
		ws[started].pool = &p;
		ws[started].id = started;
		if (pthread_create(&tids[started], NULL, worker_main, &ws[started]) != 0)
			break;
	}
	if (started == 0) {
		rc = FK_ERR_INTERNAL;
		goto joined;
	}
	for (;;) {
		/* fill the ring */
		while (rc == 0 && !eof && p.tail - p.head < p.nslots) {
			struct job *j = &p.ring[p.tail % p.nslots];
			rc = read_chunk(in, ops, ctx, &carry, j, &eof);
			if (rc < 0)
				break;
			/* host->input_start of a chunk: its offset, which orders chunks */
			j->in.shard_start = in->shard_start + handed;
			handed += j->len;
			pthread_mutex_lock(&p.mu);
			p.tail++;
			pthread_cond_signal(&p.work);
			pthread_mutex_unlock(&p.mu);
		}
		if (p.head == p.tail)
			break;
		/* retire the oldest chunk */
		struct job *j = &p.ring[p.head % p.nslots];
		pthread_mutex_lock(&p.mu);
		while (!j->done)
			pthread_cond_wait(&p.done, &p.mu);
		pthread_mutex_unlock(&p.mu);
		int r = retire(in, &j->in, j->rc, &base);
		p.head++;
		if (r < 0 && rc == 0) {
			rc = r;
			eof = true; /* stop reading; drain what is in flight */
		}
	}
joined:
	pthread_mutex_lock(&p.mu);
	p.stop = true;
	pthread_cond_broadcast(&p.work);
	pthread_mutex_unlock(&p.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.work);
	pthread_cond_destroy(&p.done);
	in->lineno = base;
out:
	rc = join_sinks(sink, p.sinks, n, rc);
	for (size_t k = 0; p.ring && k < p.nslots; k++)
		fk_free(p.ring[k].data);
	fk_free(p.ring);
	fk_free(p.sinks);
	fk_free(ws);
	fk_free(tids);
	fk_buf_free(&carry);
	if (rc == FK_ERR_NOMEM && !in->error)
		fk_input_error(in, 0, "out of memory");
	return rc;
}
