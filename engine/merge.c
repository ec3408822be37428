/*
 * Merging folded files (`flamekit merge`): sum them into one sorted folded
 * file.
 *
 * The result is byte for byte what `flamekit collapse --format folded` gives
 * for the concatenation of the inputs; only the way there differs.  Inputs
 * sorted in byte order of their stacks (as flamekit writes them) are merged
 * as streams: a k-way merge over a heap of the inputs' current lines, so
 * memory is one read buffer per input whatever their sizes.  Equal stacks
 * are summed in input order (file 1's lines, then file 2's, ...), the order
 * collapse adds them in, so even fractional counts give the same bits.
 * Lines are read and written as foldsum.c reads and writes them (the
 * folded grammar of lib/folded).
 *
 * Order is checked as lines are taken: a stack that sorts before the one
 * being summed means an input is not sorted.  The stream cannot take that
 * back, so merge starts over and sums the whole stacks in memory (what
 * collapse does, fk_foldsum_run) when it can: every input is a plain file
 * it can read again, and the output is a file (written to a temporary file
 * until done) or still unwritten.  Otherwise it stops with an error saying
 * what to do.  The same happens when a two-column (differential) line
 * shows up after merge chose one-column output from the inputs' first
 * lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fk.h"
#include "foldsum.h"

struct src {
	struct fk_input in;
	bool reopenable;     /* a regular file: can be read again from the start */
	const char *key;     /* current stack, in in's buffer (valid until the next line) */
	size_t klen;
	double w[FK_SERIES_MAX];
};

struct merge {
	const struct fk_merge *req;
	struct src *s;
	size_t n, opened;    /* inputs, and how many of s[] are open */
	size_t *heap, nheap;
	bool two;            /* two-column output */
	bool decided;        /* column mode chosen (first lines read) */
	bool fallback;       /* the stream cannot go on: rebuild in memory */
	const char *why_path;
	uint64_t why_line;
	const char *why;
	uint64_t out;        /* bytes handed to the writer */
	struct fk_writer w;
	bool stdout_file;    /* stdout is a regular file: the output starts at stdout_start */
	off_t stdout_start;
};

/* Advance src to its next stack line.  Lines with an empty stack (" 5",
 * ";; 5") add nothing to the output but still tell whether the input is
 * differential.  0 at the end, 1 with a line, negative on a read error
 * (reported). */
static int next_line(struct merge *m, struct src *s)
{
	const char *key;
	size_t k;
	int two, r;

	while ((r = foldsum_next(&s->in, &key, &k, s->w, &two)) > 0) {
		if (two && !m->two) {
			if (m->decided && !m->fallback) {
				m->fallback = true;
				m->why_path = s->in.name;
				m->why_line = s->in.lineno;
				m->why = "a two-column line after one-column ones";
			}
			if (!m->decided)
				m->two = true;
		}
		if (k == 0)
			continue;
		s->key = key;
		s->klen = k;
		return 1;
	}
	return r;
}

static inline int keycmp(const struct src *a, size_t ia, const struct src *b, size_t ib)
{
	size_t m = a->klen < b->klen ? a->klen : b->klen;
	int r = memcmp(a->key, b->key, m);

	if (r)
		return r;
	if (a->klen != b->klen)
		return a->klen < b->klen ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static void sift_down(struct merge *m, size_t i)
{
	size_t *h = m->heap, n = m->nheap;

	for (;;) {
		size_t l = 2 * i + 1, best = i;
		if (l < n && keycmp(&m->s[h[l]], h[l], &m->s[h[best]], h[best]) < 0)
			best = l;
		if (l + 1 < n && keycmp(&m->s[h[l + 1]], h[l + 1], &m->s[h[best]], h[best]) < 0)
			best = l + 1;
		if (best == i)
			return;
		size_t t = h[i];
		h[i] = h[best];
		h[best] = t;
		i = best;
	}
}

/* The streaming merge.  Returns 0, a negative status (reported), or 1 when
 * m->fallback says the inputs must be merged in memory instead. */
static int stream(struct merge *m)
{
	struct fk_buf key = { 0 };
	double sum[FK_SERIES_MAX] = { 0 };
	bool have = false;
	int rc = 0;

	for (size_t i = 0; i < m->n; i++) {
		rc = next_line(m, &m->s[i]);
		if (rc < 0)
			goto out;
		if (rc > 0)
			m->heap[m->nheap++] = i;
	}
	rc = 0;
	m->decided = true;
	for (size_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	while (m->nheap > 0) {
		size_t top = m->heap[0];
		struct src *s = &m->s[top];

		if (have) {
			size_t c = key.len < s->klen ? key.len : s->klen;
			int r = memcmp(key.data, s->key, c);
			if (r == 0 && key.len != s->klen)
				r = key.len < s->klen ? -1 : 1;
			if (r > 0) {
				m->fallback = true;
				m->why_path = s->in.name;
				m->why_line = s->in.lineno;
				m->why = "not sorted";
				break;
			}
			if (r < 0) {
				rc = foldsum_put(&m->w, key.data, key.len, sum, m->two, &m->out);
				if (rc < 0)
					goto out;
				have = false;
			}
		}
		if (!have) {
			key.len = 0;
			if (fk_buf_append(&key, s->key, s->klen) < 0) {
				fk_log(FK_LOG_ERROR, "out of memory");
				rc = FK_ERR_NOMEM;
				goto out;
			}
			sum[0] = sum[1] = 0;
			have = true;
		}
		sum[0] += s->w[0];
		sum[1] += s->w[1];
		rc = next_line(m, s);
		if (rc < 0)
			goto out;
		if (m->fallback)
			break;
		if (rc == 0)
			m->heap[0] = m->heap[--m->nheap];
		rc = 0;
		sift_down(m, 0);
	}
	if (m->fallback) {
		rc = 1;
		goto out;
	}
	if (have)
		rc = foldsum_put(&m->w, key.data, key.len, sum, m->two, &m->out);
out:
	fk_buf_free(&key);
	return rc;
}

static void close_inputs(struct merge *m)
{
	for (size_t k = 0; k < m->opened; k++)
		fk_input_close(&m->s[k].in);
	m->opened = 0;
}

/* An input was out of order.  Can the part written be taken back (a
 * temporary file, stdout redirected to a file, or a pipe that has not been
 * written to yet: the writer flushes only once its buffer is full) and
 * every input be read again?  Then sum in memory: exactly `collapse
 * --format folded FILE...` (engine/foldsum.c); else say what to do.
 * Aborts the writer and closes the inputs either way.  Returns a status,
 * reported but FK_ERR_PLUGIN (see fk_merge_run). */
static int start_over(struct merge *m)
{
	const struct fk_merge *req = m->req;
	bool again = true, retract = m->w.path != NULL || m->stdout_file || m->out < m->w.cap;
	const char *which = NULL;
	const struct fk_plugin *in_pl;

	for (size_t k = 0; k < m->n; k++)
		if (!m->s[k].reopenable) {
			again = false;
			which = m->s[k].in.name;
		}
	fk_writer_abort(&m->w);
	if (!again || !retract) {
		fk_log(FK_LOG_ERROR, "%s:%llu: %s; merge streams sorted inputs and cannot start "
		       "over in memory because %s%s; write to a file with -o, or sort the inputs "
		       "with LC_ALL=C sort, or use 'flamekit collapse --format folded'",
		       m->why_path, (unsigned long long)m->why_line, m->why,
		       !again ? which : "part of the result is already on stdout",
		       !again ? " cannot be read again" : "");
		return FK_ERR_DATA;
	}
	fk_log(FK_LOG_INFO, "%s:%llu: %s; merging in memory instead", m->why_path,
	       (unsigned long long)m->why_line, m->why);
	if (m->stdout_file && (ftruncate(STDOUT_FILENO, m->stdout_start) < 0 ||
	                       lseek(STDOUT_FILENO, m->stdout_start, SEEK_SET) < 0)) {
		fk_log(FK_LOG_ERROR, "<stdout>: cannot rewind: %s", strerror(errno));
		return FK_ERR_IO;
	}
	close_inputs(m);
	in_pl = fk_registry_find(req->reg, FK_PLUGIN_INPUT, "folded");
	if (!in_pl || !fk_registry_find(req->reg, FK_PLUGIN_OUTPUT, "folded"))
		return FK_ERR_PLUGIN;
	return fk_foldsum_run(req->reg, in_pl, req->files, req->nfiles, req->output,
	                      req->progress, false);
}

/* Open every input, with one read buffer each: keep the total near 64 MiB.
 * 0 or a negative status, reported. */
static int open_inputs(struct merge *m)
{
	struct fk_input_params prm = { 0 };

	prm.bufsize = (64u << 20) / m->n;
	if (prm.bufsize > (1u << 20))
		prm.bufsize = 1u << 20;
	if (prm.bufsize < (64u << 10))
		prm.bufsize = 64u << 10;
	for (size_t k = 0; k < m->n; k++) {
		const char *path = m->req->files[k];
		struct src *s = &m->s[k];
		struct stat st;
		int rc = fk_input_open_with(&s->in, path, &prm);
		if (rc < 0)
			return rc;
		m->opened++;
		s->reopenable = strcmp(path, "-") != 0 && fstat(s->in.fd, &st) == 0 &&
		                S_ISREG(st.st_mode);
	}
	return 0;
}

/* Where the output starts when stdout is a regular file, which a fallback
 * can truncate back to. */
static void stdout_offset(struct merge *m)
{
	const char *path = m->req->output;
	struct stat st;

	if (path && strcmp(path, "-") != 0)
		return;
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		/* With O_APPEND (>>) the offset means nothing until the first
		 * write: the output starts at the current end. */
		int fl = fcntl(STDOUT_FILENO, F_GETFL);
		m->stdout_start = fl >= 0 && (fl & O_APPEND) ? st.st_size
		                                              : lseek(STDOUT_FILENO, 0, SEEK_CUR);
		m->stdout_file = fl >= 0 && m->stdout_start >= 0;
	}
}

int fk_merge_run(const struct fk_merge *req)
{
	FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE);
	struct merge m;
	bool wopen = false;
	int rc;

	memset(&m, 0, sizeof m);
	m.req = req;
	m.n = req->nfiles;
	if (m.n == 0) {
		fk_log(FK_LOG_ERROR, "merge: no files to merge");
		return FK_ERR_USAGE;
	}
	if ((rc = fk_output_not_input(req->output, req->files, req->nfiles)) < 0)
		return rc;
	m.s = fk_calloc(m.n, sizeof *m.s);
	m.heap = fk_calloc(m.n, sizeof *m.heap);
	if (!m.s || !m.heap) {
		fk_log(FK_LOG_ERROR, "out of memory");
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if ((rc = open_inputs(&m)) < 0 || (rc = fk_writer_open(&m.w, req->output)) < 0)
		goto out;
	wopen = true;
	stdout_offset(&m);
	rc = stream(&m);
	if (rc == 1) {
		wopen = false;
		rc = start_over(&m);
		goto out;
	}
	if (rc == 0 && m.w.error)
		rc = m.w.error;
	if (rc < 0 && m.w.epipe)
		rc = 0; /* the reader has what it wanted */
	if (rc == 0) {
		for (size_t k = 0; k < m.n; k++)
			fk_input_report(&m.s[k].in);
		wopen = false;
		rc = fk_writer_commit(&m.w);
	}
out:
	if (wopen)
		fk_writer_abort(&m.w);
	close_inputs(&m);
	fk_free(m.s);
	fk_free(m.heap);
	/* a missing folded plugin is the caller's to name */
	return rc == FK_ERR_PLUGIN ? rc : fk_ctx_fail(cx, rc);
}
