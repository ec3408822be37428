/*
 * flamekit merge: sum folded files into one sorted folded file.
 *
 * The result is byte for byte what `flamekit collapse --format folded` gives
 * for the concatenation of the inputs; only the way there differs.  Inputs
 * sorted in byte order of their stacks (as flamekit writes them) are merged
 * as streams: a k-way merge over a heap of the inputs' current lines, so
 * memory is one read buffer per input whatever their sizes.  Equal stacks
 * are summed in input order (file 1's lines, then file 2's, ...), the order
 * collapse adds them in, so even fractional counts give the same bits.
 *
 * Order is checked as lines are taken: a stack that sorts before the one
 * being summed means an input is not sorted.  The stream cannot take that
 * back, so merge starts over and builds the stack tree in memory (what
 * collapse does) when it can: every input is a plain file it can read again,
 * and the output is a file (-o, written to a temporary file until done) or
 * still unwritten.  Otherwise it stops with an error saying what to do.
 * The same happens when a two-column (differential) line shows up after
 * merge chose one-column output from the inputs' first lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/fk.h" /* engine internals: this file moves into the engine (issue 27) */
#include "cli.h"
#include "folded/fkfolded.h"
#include "../engine/foldsum.h"

struct src {
	struct fk_input in;
	const char *path;
	bool reopenable;     /* a regular file: can be read again from the start */
	bool done;
	const char *key;     /* current stack, in in's buffer (valid until the next line) */
	size_t klen;
	double w[FK_SERIES_MAX];
	bool two;            /* the current line had two counts */
};

struct merge {
	struct src *s;
	size_t n;
	size_t *heap, nheap;
	bool two;            /* two-column output */
	bool decided;        /* column mode chosen (first lines read) */
	bool fallback;       /* the stream cannot go on: rebuild in memory */
	const char *why_path;
	uint64_t why_line;
	const char *why;
	uint64_t out;         /* bytes handed to the writer */
};

/* Advance src to its next stack line.  Unreadable lines are counted as
 * skipped; lines with an empty stack (" 5", ";; 5") add nothing to the
 * output but still tell whether the input is differential.  0 at the end,
 * 1 with a line, negative on a read error (reported). */
static int next_line(struct merge *m, struct src *s)
{
	const char *line;
	size_t len;
	int r;

	while ((r = fk_input_getline(&s->in, &line, &len)) > 0) {
		int two;
		long sl = fk_folded_line(line, len, s->w, &two);
		size_t k;

		if (sl < 0) {
			if (len > 0)
				fk_input_skip(&s->in, s->in.lineno);
			continue;
		}
		s->two = two;
		if (s->two && !m->two) {
			if (m->decided && !m->fallback) {
				m->fallback = true;
				m->why_path = s->in.name;
				m->why_line = s->in.lineno;
				m->why = "a two-column line after one-column ones";
			}
			if (!m->decided)
				m->two = true;
		}
		k = fk_folded_trim(line, (size_t)sl);
		if (k == 0)
			continue;
		s->key = line;
		s->klen = k;
		return 1;
	}
	if (r == 0)
		s->done = true;
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

/* One output line; m->out counts the bytes, so merge knows whether any
 * has left the writer's buffer. */
static int put_line(struct merge *m, struct fk_writer *w, const struct fk_buf *key,
                    const double *sum)
{
	char t[160];
	size_t n = 0;
	int rc;

	t[n++] = ' ';
	n += fk_folded_format(t + n, 64, sum[0]);
	if (m->two) {
		t[n++] = ' ';
		n += fk_folded_format(t + n, 64, sum[1]);
	}
	t[n++] = '\n';
	rc = fk_writer_write(w, key->data, key->len);
	if (rc == 0)
		rc = fk_writer_write(w, t, n);
	m->out += key->len + n;
	return rc;
}

/* The streaming merge.  Returns 0, a negative status (reported), or 1 when
 * m->fallback says the inputs must be merged in memory instead. */
static int stream(struct merge *m, struct fk_writer *w)
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
				rc = put_line(m, w, &key, sum);
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
		rc = put_line(m, w, &key, sum);
out:
	fk_buf_free(&key);
	return rc;
}

/* Merge in memory: exactly `collapse --format folded FILE...`, which sums
 * whole stacks without the stack tree (engine/foldsum.c). */
static int in_memory(struct cli *c, char **files, size_t nfiles, const char *outpath)
{
	const struct fk_plugin *in_pl = cli_find(c, FK_PLUGIN_INPUT, "folded", "merge");

	if (!in_pl || !cli_find(c, FK_PLUGIN_OUTPUT, "folded", "merge"))
		return FK_ERR_PLUGIN;
	return fk_foldsum_run(&c->reg, in_pl, (const char *const *)files, nfiles, outpath, c->progress,
	                      false);
}

/* An input was out of order.  Can the part written be taken back (a
 * temporary file, stdout redirected to a file, or a pipe that has not been
 * written to yet: the writer flushes only once its buffer is full) and
 * every input be read again?  Then merge in memory; else say what to do.
 * Aborts w and closes the inputs either way.  Returns a status, reported. */
static int start_over(struct cli *c, struct merge *m, struct fk_writer *w, char **files,
                      size_t *opened, const char *outpath, bool stdout_file, off_t stdout_start)
{
	bool again = true, retract = w->path != NULL || stdout_file || m->out < w->cap;
	const char *which = NULL;

	for (size_t k = 0; k < m->n; k++)
		if (!m->s[k].reopenable) {
			again = false;
			which = m->s[k].in.name;
		}
	fk_writer_abort(w);
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
	if (stdout_file && (ftruncate(STDOUT_FILENO, stdout_start) < 0 ||
	                    lseek(STDOUT_FILENO, stdout_start, SEEK_SET) < 0)) {
		fk_log(FK_LOG_ERROR, "<stdout>: cannot rewind: %s", strerror(errno));
		return FK_ERR_IO;
	}
	for (size_t k = 0; k < *opened; k++)
		fk_input_close(&m->s[k].in);
	*opened = 0;
	return in_memory(c, files, m->n, outpath);
}

int cmd_merge(struct cli *c, int argc, char **argv)
{
	const char *outpath = NULL;
	char **files = NULL;
	size_t nfiles = 0, opened = 0;
	struct merge m;
	struct fk_input_params prm = { 0 };
	struct fk_writer w;
	bool wopen = false, stdout_file = false;
	off_t stdout_start = 0;
	struct cli_args args = { 0 };
	int rc = EXIT_USAGE, r;

	memset(&m, 0, sizeof m);
	files = fk_calloc((size_t)argc, sizeof *files);
	if (!files)
		goto nomem;
	if ((r = cli_parse(c, "merge", argc, argv, NULL, NULL, NULL, &args)) < 0) {
		rc = cli_exit(r);
		goto out;
	}
	outpath = args.v[OPT_OUTPUT];
	for (size_t k = 0; k < args.nfiles; k++)
		files[nfiles++] = (char *)args.files[k];
	if (nfiles == 0) {
		cli_usage_error("merge", "give the folded files to merge");
		goto out;
	}
	if (c->shard_n > 1) {
		cli_usage_error("merge", "--shard does not apply to merge (its inputs are already "
		                "folded); merge the shards' outputs instead");
		goto out;
	}
	if (fk_output_not_input(outpath, (const char *const *)files, nfiles) < 0)
		goto out; /* EXIT_USAGE */
	rc = EXIT_DATA;
	if (cli_load(c) < 0)
		goto out;
	m.n = nfiles;
	m.s = fk_calloc(nfiles, sizeof *m.s);
	m.heap = fk_calloc(nfiles, sizeof *m.heap);
	if (!m.s || !m.heap)
		goto nomem;
	/* One read buffer per input: keep the total near 64 MiB. */
	prm.bufsize = (64u << 20) / nfiles;
	if (prm.bufsize > (1u << 20))
		prm.bufsize = 1u << 20;
	if (prm.bufsize < (64u << 10))
		prm.bufsize = 64u << 10;
	for (size_t k = 0; k < nfiles; k++) {
		struct src *s = &m.s[k];
		struct stat st;
		s->path = files[k];
		if (fk_input_open_with(&s->in, files[k], &prm) < 0)
			goto out;
		opened++;
		s->reopenable = strcmp(files[k], "-") != 0 && fstat(s->in.fd, &st) == 0 &&
		                S_ISREG(st.st_mode);
	}
	if (fk_writer_open(&w, outpath) < 0)
		goto out;
	wopen = true;
	if (!outpath || strcmp(outpath, "-") == 0) {
		struct stat st;
		if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
			/* With O_APPEND (>>) the offset means nothing until the
			 * first write: the output starts at the current end. */
			int fl = fcntl(STDOUT_FILENO, F_GETFL);
			stdout_start = fl >= 0 && (fl & O_APPEND) ? st.st_size
			                                           : lseek(STDOUT_FILENO, 0, SEEK_CUR);
			stdout_file = fl >= 0 && stdout_start >= 0;
		}
	}
	r = stream(&m, &w);
	if (r == 1) {
		wopen = false;
		rc = cli_exit(start_over(c, &m, &w, files, &opened, outpath, stdout_file, stdout_start));
		goto out;
	}
	if (r == 0 && w.error)
		r = w.error;
	if (r < 0 && w.epipe)
		r = 0;
	if (r == 0) {
		for (size_t k = 0; k < nfiles; k++)
			fk_input_report(&m.s[k].in);
		wopen = false;
		r = fk_writer_commit(&w);
	}
	rc = cli_exit(r);
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	rc = EXIT_DATA;
out:
	if (wopen)
		fk_writer_abort(&w);
	for (size_t k = 0; k < opened; k++)
		fk_input_close(&m.s[k].in);
	fk_free(m.s);
	fk_free(m.heap);
	fk_free(files);
	cli_args_free(&args);
	return rc;
}
