/*
 * The worker pool of workers.h: threads that take the jobs handed out, in
 * the order handed out, and parse each into its sink; the caller retires
 * them in input order.
 */
#include <string.h>

#include "workers.h"

/* Run job j on worker id into its sink; the caller marks it done. */
static void run_job(struct fk_workers *w, unsigned id, struct fk_job *j)
{
	j->rc = w->jobs->run(w->ctx, id, j, j->sink ? j->sink : w->sinks[id]);
}

/* Whether worker id may take job j: one handed to it, to any worker, or to
 * a worker that did not start. */
static bool for_worker(const struct fk_workers *w, const struct fk_job *j, unsigned id)
{
	return j->worker == FK_JOB_ANY || j->worker == id || j->worker >= w->started;
}

/* Worker id's next job: the oldest handed out that it may take, waiting
 * for one; NULL once stopped with none left for it.  Called with w->mu
 * held. */
static struct fk_job *take(struct fk_workers *w, unsigned id)
{
	for (;;) {
		struct fk_job **at = &w->head, *prev = NULL;
		while (*at && !for_worker(w, *at, id)) {
			prev = *at;
			at = &(*at)->next;
		}
		if (*at) {
			struct fk_job *j = *at;
			if (!(*at = j->next))
				w->tail = prev;
			j->next = NULL;
			return j;
		}
		if (w->stop)
			return NULL;
		pthread_cond_wait(&w->work, &w->mu);
	}
}

struct worker {
	struct fk_workers *w;
	unsigned id;
};

static void *worker_main(void *arg)
{
	struct fk_workers *w = ((struct worker *)arg)->w;
	unsigned id = ((struct worker *)arg)->id;
	FK_CTX_SERVE(cx, w->cx); /* the caller's context, on this thread too */

	fk_free(arg);
	pthread_mutex_lock(&w->mu);
	for (struct fk_job *j; (j = take(w, id)) != NULL;) {
		pthread_mutex_unlock(&w->mu);
		for (struct fk_job *k = j; k;) {
			run_job(w, id, k);
			struct fk_job *more = w->jobs->more ? w->jobs->more(w->ctx, id, k) : NULL;
			pthread_mutex_lock(&w->mu);
			k->done = true;
			pthread_cond_broadcast(&w->done);
			pthread_mutex_unlock(&w->mu);
			k = more;
		}
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Start one worker thread: false when none can be had (or its argument
 * not allocated; an injected allocation failure fails it too). */
static bool start_thread(struct fk_workers *w, unsigned id)
{
	struct worker *a = fk_malloc(sizeof *a);

	if (!a)
		return false;
	a->w = w;
	a->id = id;
	if (pthread_create(&w->tids[id], NULL, worker_main, a) != 0) {
		fk_free(a);
		return false;
	}
	return true;
}

int fk_workers_start(struct fk_workers *w, unsigned n, struct fk_sink *sink, unsigned flags,
                     const struct fk_workers_ops *jobs, void *ctx)
{
	memset(w, 0, sizeof *w);
	w->jobs = jobs;
	w->ctx = ctx;
	w->cx = fk_ctx_current();
	w->sink = sink;
	w->flags = flags;
	w->n = n ? n : 1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	if (!(w->tids = fk_calloc(w->n, sizeof *w->tids)) ||
	    (!(flags & FK_WORKERS_JOB_SINKS) && !(w->sinks = fk_calloc(w->n, sizeof *w->sinks))))
		goto nomem;
	for (unsigned i = 0; w->sinks && i < w->n; i++)
		if (!(w->sinks[i] = fk_sink_fork(sink)))
			goto nomem;
	while (w->started < w->n && start_thread(w, w->started)) {
		pthread_mutex_lock(&w->mu); /* the workers read it (for_worker) */
		w->started++;
		pthread_mutex_unlock(&w->mu);
	}
	return 0;
nomem:
	fk_workers_end(w, FK_ERR_NOMEM);
	return FK_ERR_NOMEM;
}

int fk_workers_submit(struct fk_workers *w, struct fk_job *j)
{
	j->next = NULL;
	j->done = false;
	j->rc = 0;
	j->sink = NULL;
	if ((w->flags & FK_WORKERS_JOB_SINKS) && !(j->sink = fk_sink_fork(w->sink)))
		return FK_ERR_NOMEM;
	if (w->started == 0) {
		/* no thread to be had: parse it here, in its turn */
		for (struct fk_job *k = j; k; k = w->jobs->more ? w->jobs->more(w->ctx, 0, k) : NULL) {
			run_job(w, 0, k);
			k->done = true;
		}
		return 0;
	}
	pthread_mutex_lock(&w->mu);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_broadcast(&w->work); /* it may be for one worker only */
	pthread_mutex_unlock(&w->mu);
	return 0;
}

void fk_workers_wait(struct fk_workers *w, struct fk_job *j)
{
	pthread_mutex_lock(&w->mu);
	while (!j->done)
		pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void fk_workers_stop(struct fk_workers *w)
{
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->mu);
	for (unsigned i = 0; i < w->started; i++)
		pthread_join(w->tids[i], NULL);
	w->started = 0;
}

int fk_workers_end(struct fk_workers *w, int rc)
{
	fk_workers_stop(w);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	for (unsigned i = 0; w->sinks && i < w->n; i++) {
		int r = fk_sink_join(rc == 0 ? w->sink : NULL, w->sinks[i]);
		if (r < 0 && rc == 0)
			rc = r;
	}
	fk_free(w->sinks);
	fk_free(w->tids);
	memset(w, 0, sizeof *w);
	return rc;
}

int fk_job_join(struct fk_sink *sink, struct fk_job *j, int rc)
{
	int r = fk_sink_join(rc == 0 && j->rc == 0 ? sink : NULL, j->sink);

	j->sink = NULL;
	return rc < 0 ? rc : r;
}

int fk_job_retire(struct fk_input *whole, struct fk_job *j, uint64_t *base, uint64_t lines,
                  int failed)
{
	struct fk_input *c = j->in;
	int rc = j->rc == 0 ? c->error : j->rc;

	if (failed < 0) {
		rc = failed; /* one thread would have stopped there: nothing after counts */
	} else {
		for (uint64_t k = 0; k < c->skipped; k++)
			fk_input_skip(whole, k < 5 ? *base + c->skipped_first[k] : 0);
		if (rc < 0 && c->err_msg) {
			whole->chunk = false;
			fk_input_error(whole, c->err_line ? *base + c->err_line : 0, "%s", c->err_msg);
		} else if (rc < 0 && c->err_lost && !whole->error) {
			/* the job's message did not fit in memory either */
			fk_log(FK_LOG_ERROR, "%s: out of memory", whole->name);
			whole->error = FK_ERR_NOMEM;
		} else if (rc < 0 && !whole->error) {
			whole->error = rc;
		}
		*base += lines;
	}
	fk_free(c->err_msg);
	c->err_msg = NULL;
	c->err_lost = false;
	return rc;
}
