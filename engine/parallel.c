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
 * A chunk's or range's host->input_start is its offset in the input.
 * Both run on the engine's worker pool (workers.h), with one forked sink
 * per worker, joined in worker order at the end; weights are sums, so the
 * merged tree does not depend on which worker took which part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workers.h"

#define CHUNK ((size_t)2 << 20)
/* Inputs smaller than this are not worth threads (see below). */
#define SERIAL_BELOW ((uint64_t)32 << 20)
/* A range's read buffer, and the least a worker takes from another's
 * range (less is not worth the cut). */
#define BUFSZ ((size_t)1 << 20)
#define STEAL_MIN ((size_t)1 << 20)
/* How far past a split point a record boundary is looked for. */
#define CUT_WINDOW_MAX ((size_t)16 << 20)

/* A chunk: its buffer (kept across uses) and the job parsing it. */
struct chunk {
	struct fk_job job;
	char *data;
	size_t len, cap;
	struct fk_input in;  /* the chunk as an input */
};

struct chunk_ctx {
	const struct fk_chunk_ops *ops;
	void *ctx;
};

static int run_chunk(void *arg, unsigned w, struct fk_job *j, struct fk_sink *sink)
{
	struct chunk_ctx *c = arg;

	return fk_call_chunk_parse(c->ops, c->ctx, w, j->in, sink);
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
                      struct fk_buf *carry, struct chunk *j, bool *eof)
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
	j->job.in = &j->in;
	j->job.worker = FK_JOB_ANY;
	return 0;
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
	struct fk_job job;     /* first: the pool's jobs are ranges */
	struct rpool *pool;
	uint64_t start, end;   /* file offsets; end moves back when the tail is taken */
	uint64_t pos;          /* the next offset its owner reads */
	struct fk_input in;    /* the range as an input */
};

struct rpool {
	const struct fk_chunk_ops *ops;
	void *ctx;
	struct fk_ctx *cx;     /* the context of the input's parse: the workers serve it */
	struct fk_input *parent;
	const struct fk_plugin *sync; /* the input plugin whose sync() cuts */
	unsigned n;            /* workers */
	struct fk_range **v;   /* every range, in the order they were made */
	size_t nv, cap;
	struct fk_range **cur; /* per worker: the range it parses, or NULL */
	uint64_t base_off;     /* file offset of the first byte to parse */
	uint64_t stop_after;   /* the start of the first failed range: those after it stop */
	size_t readsz, steal_min;
	pthread_mutex_t mu;
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
 * a fresh buffer costs a page fault a page.  Called with p->mu held:
 * the workers add the ranges they take while the first are handed out. */
static struct fk_range *range_new(struct rpool *p, uint64_t start, uint64_t end,
                                  struct fk_range *done)
{
	struct fk_range *r;

	if (p->nv == p->cap) {
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
	r->job.in = &r->in;
	r->job.worker = FK_JOB_ANY;
	p->v[p->nv++] = r;
	return r;
}

/* Worker self's next range: the back half of the range with the most left,
 * or NULL when none has enough left to be worth it.  `done` is the range
 * self finished (its buffer is reused). */
static struct fk_range *take_tail(struct rpool *p, unsigned self, struct fk_range *done)
{
	unsigned n = p->n;

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

/* The pool's job: parse range j on worker w into w's sink; a failure
 * stops the ranges after it. */
static int run_range(void *arg, unsigned w, struct fk_job *j, struct fk_sink *sink)
{
	struct rpool *p = arg;
	struct fk_range *r = (struct fk_range *)j;
	int rc;

	pthread_mutex_lock(&p->mu);
	p->cur[w] = r; /* its tail may be taken from now on */
	pthread_mutex_unlock(&p->mu);
	rc = fk_call_chunk_parse(p->ops, p->ctx, w, &r->in, sink);
	if (rc == 0 && r->in.error)
		rc = r->in.error;
	pthread_mutex_lock(&p->mu);
	p->cur[w] = NULL;
	if (rc < 0 && r->start < p->stop_after)
		p->stop_after = r->start;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* Once worker w is done with range `done`: the back half of another's. */
static struct fk_job *more_range(void *arg, unsigned w, struct fk_job *done)
{
	struct fk_range *r = take_tail(arg, w, (struct fk_range *)done);

	return r ? &r->job : NULL;
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
	static const struct fk_workers_ops range_ops = { run_range, more_range };
	struct rpool p;
	struct fk_workers w;
	uint64_t base = in->lineno, prev = from;
	int rc = 0;

	memset(&p, 0, sizeof p);
	p.ops = ops;
	p.ctx = ctx;
	p.parent = in;
	p.sync = in->plugin;
	p.n = n;
	p.base_off = from;
	p.stop_after = UINT64_MAX;
	/* tests' tiny chunks make tiny reads and cuts too */
	p.readsz = getenv("FLAMEKIT_CHUNK_BYTES") ? chunk_bytes() : BUFSZ;
	p.steal_min = getenv("FLAMEKIT_CHUNK_BYTES") ? p.readsz : STEAL_MIN;
	pthread_mutex_init(&p.mu, NULL);
	if (!(p.cur = fk_calloc(n, sizeof *p.cur)) ||
	    fk_workers_start(&w, n, sink, 0, &range_ops, &p) < 0) {
		rc = FK_ERR_NOMEM;
		goto freed;
	}
	/* one range per worker, cut near the even split points, handed out in
	 * file order, each to a worker of its own */
	for (unsigned k = 0; k < n; k++) {
		uint64_t end = to;
		struct fk_range *r;
		if (k + 1 < n) {
			uint64_t o = from + (uint64_t)((unsigned __int128)(to - from) * (k + 1) / n);
			end = o > prev ? find_cut(&p, o, to) : prev;
		}
		if (end <= prev)
			continue;
		/* the workers run already: one may be adding a range it took */
		pthread_mutex_lock(&p.mu);
		r = range_new(&p, prev, end, NULL);
		pthread_mutex_unlock(&p.mu);
		if (!r) {
			rc = FK_ERR_NOMEM;
			break;
		}
		r->job.worker = k;
		fk_workers_submit(&w, &r->job);
		prev = end;
	}
	fk_workers_stop(&w);
	/* retire in file order; what follows the first failed range is not reported */
	if (p.nv > 1)
		qsort(p.v, p.nv, sizeof *p.v, by_start);
	for (size_t i = 0; i < p.nv; i++)
		rc = fk_job_retire(in, &p.v[i]->job, &base, p.v[i]->in.lineno, rc);
	in->lineno = base;
	/* the parent input is read to its end */
	in->start = in->end = 0;
	in->eof = true;
	if (in->limited)
		in->limit = 0;
	rc = fk_workers_end(&w, rc);
freed:
	for (size_t i = 0; i < p.nv; i++) {
		fk_free(p.v[i]->in.buf);
		fk_free(p.v[i]->in.err_msg);
		fk_free(p.v[i]);
	}
	fk_free(p.v);
	fk_free(p.cur);
	pthread_mutex_destroy(&p.mu);
	if (rc == FK_ERR_NOMEM && !in->error)
		fk_input_error(in, 0, "out of memory");
	return rc;
}

int fk_parse_chunks(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops, void *ctx)
{
	static const struct fk_workers_ops chunk_ops = { run_chunk, NULL };
	struct chunk_ctx cc = { ops, ctx };
	struct fk_workers w;
	struct chunk *ring = NULL; /* 2 x threads chunks in flight */
	struct fk_buf carry = { 0 };
	unsigned n = sink->threads;
	size_t nslots = 2 * (size_t)n, head = 0, tail = 0; /* retire at head, fill at tail */
	uint64_t base = in->lineno, handed = 0, from, to;
	bool eof = false;
	int rc = 0, failed = 0;

	/* A file of a few chunks is parsed on this thread: the workers' sinks
	 * must be merged at the end, and with mostly distinct stacks that
	 * merge costs as much as the parse it saved (100,000 distinct stacks
	 * in 15 MB rendered slower on two threads than on one). */
	if (n <= 1 || sink->p->keep_samples || fk_input_left(in) < serial_below())
		return fk_call_chunk_parse(ops, ctx, 0, in, sink);
	if (by_ranges(in, &from, &to))
		return parse_ranges(in, sink, ops, ctx, n, from, to);
	if (!(ring = fk_calloc(nslots, sizeof *ring)) ||
	    fk_workers_start(&w, n, sink, 0, &chunk_ops, &cc) < 0) {
		rc = FK_ERR_NOMEM;
		goto freed;
	}
	for (;;) {
		/* fill the ring */
		while (rc == 0 && !eof && tail - head < nslots) {
			struct chunk *c = &ring[tail % nslots];
			if ((rc = read_chunk(in, ops, ctx, &carry, c, &eof)) < 0)
				break;
			/* host->input_start of a chunk: its offset, which orders chunks */
			c->in.shard_start = in->shard_start + handed;
			handed += c->len;
			fk_workers_submit(&w, &c->job);
			tail++;
		}
		if (head == tail)
			break;
		/* retire the oldest chunk */
		struct chunk *c = &ring[head++ % nslots];
		fk_workers_wait(&w, &c->job);
		if ((failed = fk_job_retire(in, &c->job, &base, c->in.lineno, failed)) < 0 && rc == 0) {
			rc = failed;
			eof = true; /* stop reading; drain what is in flight */
		}
	}
	in->lineno = base;
	rc = fk_workers_end(&w, rc);
freed:
	for (size_t k = 0; ring && k < nslots; k++)
		fk_free(ring[k].data);
	fk_free(ring);
	fk_buf_free(&carry);
	if (rc == FK_ERR_NOMEM && !in->error)
		fk_input_error(in, 0, "out of memory");
	return rc;
}
