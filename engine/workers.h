/*
 * The engine's one way of parsing on threads: a bounded pool of workers
 * running jobs, each job a part of one input (a chunk or a range of
 * host->parse_chunks, engine/parallel.c; a part of host->parse_parts or
 * parse_streams, engine/parts.c), retired strictly in input order, so the
 * output and the messages are the same bytes whatever --threads says.
 *
 * A job parses a sub-input: a struct fk_input whose errors are deferred
 * (`chunk` or `defer_errors` set: its first error's line and text are kept
 * in err_line/err_msg, not printed), with line numbers and skipped lines
 * counted from its own start.  Its sink is its own (forked when it is
 * handed out, joined in input order: parts, whose sample order is part
 * order) or its worker's (one forked sink per worker, joined in worker
 * order: chunks and ranges, where samples are not logged and only the sums
 * matter).  fk_job_retire folds a finished job into the whole input: its
 * skipped lines, and its error when it is the first in input order; after
 * a failure nothing more is reported, as one thread would have stopped.
 *
 * The workers serve the context of the thread that started them
 * (FK_CTX_SERVE): their messages carry that plugin's prefix and mark that
 * call.  Everything here is driven from that one thread: it starts the
 * pool, hands out the jobs in input order, waits, retires and ends.  When
 * no thread can be started, jobs run on the calling thread as they are
 * handed out, in order, as one thread would parse them.
 */
#ifndef FK_WORKERS_H
#define FK_WORKERS_H

#include <limits.h>
#include <pthread.h>

#include "fk.h"

struct fk_job {
	/* Set by the caller before fk_workers_submit. */
	struct fk_input *in;  /* the sub-input it parses (borrowed) */
	unsigned worker;      /* the worker to run it, FK_JOB_ANY for the first free one
	                       * (a worker that did not start leaves its jobs to any) */
	/* Kept by the pool. */
	struct fk_sink *sink; /* its own forked sink (FK_WORKERS_JOB_SINKS), or NULL */
	int rc;               /* once done: jobs->run's status, else in->error */
	bool done;
	struct fk_job *next;  /* the queue of jobs not yet taken */
};

#define FK_JOB_ANY UINT_MAX

struct fk_workers_ops {
	/* Parse job j on worker w (0 .. n-1) into `sink` (its own or its
	 * worker's).  Runs on a worker thread, or on the caller's. */
	int (*run)(void *ctx, unsigned w, struct fk_job *j, struct fk_sink *sink);
	/* Optional: worker w's next job of its own making once `done` is done
	 * and nothing is queued (ranges take another's tail), NULL for none.
	 * A job it makes is run by w at once, never queued. */
	struct fk_job *(*more)(void *ctx, unsigned w, struct fk_job *done);
};

enum fk_workers_flags {
	FK_WORKERS_JOB_SINKS = 1 << 0, /* each job forks a sink of its own; else one per worker */
};

struct fk_workers {
	const struct fk_workers_ops *jobs;
	void *ctx;
	struct fk_ctx *cx;        /* the context the workers serve */
	struct fk_sink *sink;     /* the parse's sink: forks' parent */
	struct fk_sink **sinks;   /* one per worker, or NULL (job sinks) */
	unsigned n, started, flags;
	pthread_t *tids;
	struct fk_job *head, *tail; /* handed out, not yet taken */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
};

/* Start up to n worker threads (at least 1) for sink (FK_WORKERS_* flags).
 * 0, or FK_ERR_NOMEM (w is then ended: nothing more to call).  A thread
 * that cannot be started only means fewer workers. */
int fk_workers_start(struct fk_workers *w, unsigned n, struct fk_sink *sink, unsigned flags,
                     const struct fk_workers_ops *jobs, void *ctx);
/* Hand job j out; jobs are taken in the order handed out.  With job sinks,
 * its sink is forked first: FK_ERR_NOMEM when it cannot be (j is not run).
 * With no thread started, j runs here before this returns. */
int fk_workers_submit(struct fk_workers *w, struct fk_job *j);
/* Wait until j (handed out) is done. */
void fk_workers_wait(struct fk_workers *w, struct fk_job *j);
/* Wait until every job handed out is done and join the threads (jobs
 * handed out afterwards run on the calling thread). */
void fk_workers_stop(struct fk_workers *w);
/* Stop (when not done yet), then join the workers' sinks into the parse's
 * sink in worker order (only free them when rc < 0) and free the pool.
 * Returns rc, or the first join's error.  Job sinks are fk_job_join's. */
int fk_workers_end(struct fk_workers *w, int rc);
/* Join job j's own sink into `sink` (only free it when rc < 0 or j
 * failed): job sinks are joined in input order, after fk_workers_end.
 * Returns rc, or the join's error. */
int fk_job_join(struct fk_sink *sink, struct fk_job *j, int rc);
/* Fold the finished job j into `whole`, the input the jobs make up: unless
 * `failed` (the status of the jobs retired before it) is negative, j's
 * skipped lines and its error, their line numbers moved on by *base, which
 * then moves on by `lines` (j's line count).  After a failure nothing is
 * counted or reported: one thread would have stopped there.  j's kept
 * message is freed.  Returns `failed` when negative, else j's status
 * (jobs->run's, else its input's error). */
int fk_job_retire(struct fk_input *whole, struct fk_job *j, uint64_t *base, uint64_t lines,
                  int failed);

#endif
