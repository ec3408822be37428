/*
 * Parallel parsing of one input (host->parse_chunks).
 *
 * The calling thread reads the input in chunks of CHUNK bytes, cuts each
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
 * A chunk's host->input_start is its offset in the input.
 * The forked sinks are joined in worker order at the end; weights are
 * sums, so the merged tree does not depend on which worker took which
 * chunk.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fk.h"

#define CHUNK ((size_t)2 << 20)
/* Inputs smaller than this are not worth threads (see below). */
#define SERIAL_BELOW ((uint64_t)32 << 20)

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

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->next == p->tail)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->next == p->tail && p->stop)
			break;
		struct job *j = &p->ring[p->next++ % p->nslots];
		pthread_mutex_unlock(&p->mu);
		j->rc = p->ops->parse(p->ctx, w->id, &j->in, p->sinks[w->id]);
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
		cut = *eof ? len : ops->boundary(ctx, j->data, len);
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

/* Fold a finished chunk into the parent input; returns its status. */
static int retire(struct fk_input *parent, struct job *j, uint64_t *base)
{
	int rc = j->rc;

	for (uint64_t k = 0; k < j->in.skipped; k++)
		fk_input_skip(parent, k < 5 ? *base + j->in.skipped_first[k] : 0);
	if (rc < 0 && j->in.err_msg) {
		parent->chunk = false;
		fk_input_error(parent, j->in.err_line ? *base + j->in.err_line : 0, "%s", j->in.err_msg);
	} else if (rc < 0 && j->in.err_lost && !parent->error) {
		/* the chunk's message did not fit in memory either (as parts.c) */
		fk_log(FK_LOG_ERROR, "%s: out of memory", parent->name);
		parent->error = FK_ERR_NOMEM;
	} else if (rc < 0 && !parent->error) {
		parent->error = rc;
	}
	*base += j->in.lineno;
	fk_free(j->in.err_msg);
	j->in.err_msg = NULL;
	return rc;
}

int fk_parse_chunks(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops, void *ctx)
{
	struct pool p;
	struct worker *ws = NULL;
	pthread_t *tids = NULL;
	struct fk_buf carry = { 0 };
	unsigned n = sink->threads, started = 0;
	uint64_t base = in->lineno, handed = 0;
	bool eof = false;
	int rc = 0;

	/* A file of a few chunks is parsed on this thread: the workers' sinks
	 * must be merged at the end, and with mostly distinct stacks that
	 * merge costs as much as the parse it saved (100,000 distinct stacks
	 * in 15 MB rendered slower on two threads than on one). */
	if (n <= 1 || sink->p->keep_samples || fk_input_left(in) < serial_below())
		return ops->parse(ctx, 0, in, sink);
	memset(&p, 0, sizeof p);
	p.ops = ops;
	p.ctx = ctx;
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
	for (unsigned i = 0; i < n; i++)
		if (!(p.sinks[i] = fk_host.sink_fork(sink))) {
			rc = FK_ERR_NOMEM;
			goto out;
		}
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
		int r = retire(in, j, &base);
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
	for (unsigned i = 0; p.sinks && i < n; i++) {
		int r = fk_host.sink_join(rc == 0 ? sink : NULL, p.sinks[i]);
		if (r < 0 && rc == 0)
			rc = r;
	}
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
