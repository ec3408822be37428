/*
 * Folded in, folded out, without the stack tree.
 *
 * `collapse` of folded files (any pipeline, a job's too, whose inputs are
 * all folded and whose one output is the folded plugin: fk_pipeline_run
 * asks fk_foldsum_applies) and `merge` of unsorted ones only add up equal
 * stacks and sort them.  The stack tree pays per frame (an intern and an
 * edge lookup each), and with many distinct stacks it holds a node per
 * frame of every one of them; here each distinct stack is one hash-table
 * entry holding its text, copied once from the read buffer and never
 * split, rebuilt or re-joined.  Lines are read with the folded grammar of
 * lib/folded and summed in input order (so even fractional counts give the
 * same bits as the tree's sums), then the stacks are sorted in byte order
 * and written as the folded output plugin writes them: the bytes are
 * exactly those of the pipeline (folded input plugin, stack tree, folded
 * output plugin), which stays the path for everything else.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fk.h"
#include "folded/fkfolded.h"
#include "foldsum.h"

#define ARENA_CHUNK ((size_t)1 << 20)

void foldsum_free(struct foldsum *s)
{
	for (size_t i = 0; i < s->nchunks; i++)
		fk_free(s->chunks[i]);
	fk_free(s->chunks);
	fk_free(s->v);
	fk_free(s->slots);
	memset(s, 0, sizeof *s);
}

static char *arena_copy(struct foldsum *s, const char *p, size_t n)
{
	if (s->nchunks == 0 || s->chunk_cap - s->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		char **v = fk_realloc(s->chunks, (s->nchunks + 1) * sizeof *v);
		if (!v)
			return NULL;
		s->chunks = v;
		if (!(v[s->nchunks] = fk_malloc(cap)))
			return NULL;
		s->nchunks++;
		s->used = 0;
		s->chunk_cap = cap;
	}
	char *d = s->chunks[s->nchunks - 1] + s->used;
	memcpy(d, p, n);
	s->used += n;
	return d;
}

int foldsum_grow(struct foldsum *s)
{
	size_t nmask = s->mask ? s->mask * 2 + 1 : 4095;
	uint64_t *ns = fk_calloc(nmask + 1, sizeof *ns);

	if (!ns)
		return FK_ERR_NOMEM;
	for (size_t i = 0; s->slots && i <= s->mask; i++) {
		uint64_t e = s->slots[i];
		size_t j;
		if (!e)
			continue;
		for (j = (e >> 32) & nmask; ns[j]; j = (j + 1) & nmask)
			;
		ns[j] = e;
	}
	fk_free(s->slots);
	s->slots = ns;
	s->mask = nmask;
	return 0;
}

/* Add w to stack key[0..n), creating it (its text copied) when new. */
static int fs_add(struct foldsum *s, const char *key, size_t n, const double *w)
{
	uint32_t h = (uint32_t)fk_hash(key, n);
	size_t j;
	uint64_t e;
	struct fs_stack *st;

	if ((s->n + 1) * 4 > (s->mask + 1) * 3 && foldsum_grow(s) < 0)
		return FK_ERR_NOMEM;
	for (j = h & s->mask; (e = s->slots[j]) != 0; j = (j + 1) & s->mask) {
		if ((uint32_t)(e >> 32) != h)
			continue;
		st = &s->v[(uint32_t)e - 1];
		if (st->len == n && memcmp(st->key, key, n) == 0) {
			st->w[0] += w[0];
			st->w[1] += w[1];
			return 0;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct fs_stack *v = fk_realloc(s->v, cap * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		s->v = v;
		s->cap = cap;
	}
	if (s->n >= UINT32_MAX - 1)
		return FK_ERR_LIMIT;
	st = &s->v[s->n];
	if (!(st->key = arena_copy(s, key, n)))
		return FK_ERR_NOMEM;
	st->len = n;
	/* 0 + w: the tree starts every sum at 0 too (-0 prints as 0) */
	st->w[0] = 0 + w[0];
	st->w[1] = 0 + w[1];
	s->slots[j] = (uint64_t)h << 32 | (s->n + 1);
	s->n++;
	return 0;
}

int foldsum_next(struct fk_input *in, const char **key, size_t *klen, double *w, int *two)
{
	const char *line;
	size_t len;
	int r;

	while ((r = fk_input_getline(in, &line, &len)) > 0) {
		long sl = fk_folded_line(line, len, w, two);

		if (sl < 0) {
			if (len > 0)
				fk_input_skip(in, in->lineno);
			continue;
		}
		*key = line;
		*klen = fk_folded_trim(line, (size_t)sl);
		return 1;
	}
	return r;
}

/* One input, read as the folded input plugin reads it. */
int foldsum_read(struct foldsum *s, struct fk_input *in)
{
	const char *key;
	size_t k;
	double w[2];
	int two, r;

	while ((r = foldsum_next(in, &key, &k, w, &two)) > 0) {
		s->two |= two;
		if (k == 0) {
			/* an empty stack: only its columns count (the root's own
			 * weight, for prune.c) */
			s->nempty++;
			s->empty[0] += w[0];
			s->empty[1] += w[1];
			continue;
		}
		r = fs_add(s, key, k, w);
		if (r < 0)
			return fk_input_error(in, in->lineno, "%s", fk_strerror(r));
	}
	return r;
}

static int cmp_stacks(const void *a, const void *b)
{
	const struct fs_stack *x = *(const struct fs_stack *const *)a, *y = *(const struct fs_stack *const *)b;
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->key, y->key, m);

	if (r)
		return r;
	return x->len < y->len ? -1 : x->len > y->len;
}

int foldsum_put(struct fk_writer *w, const char *key, size_t len, const double *c, bool two,
                uint64_t *bytes)
{
	char t[160];
	size_t n = 0;
	int rc;

	t[n++] = ' ';
	n += fk_folded_format(t + n, 64, c[0]);
	if (two) {
		t[n++] = ' ';
		n += fk_folded_format(t + n, 64, c[1]);
	}
	t[n++] = '\n';
	rc = fk_writer_write(w, key, len);
	if (rc == 0)
		rc = fk_writer_write(w, t, n);
	if (bytes)
		*bytes += len + n;
	return rc;
}

/* The stacks in byte order, as the folded output plugin writes them. */
static int fs_write(struct foldsum *s, struct fk_writer *w)
{
	struct fs_stack **order = fk_malloc((s->n ? s->n : 1) * sizeof *order);
	int rc = 0;

	if (!order) {
		fk_log(FK_LOG_ERROR, "out of memory writing folded stacks");
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->n; i++)
		order[i] = &s->v[i];
	qsort(order, s->n, sizeof *order, cmp_stacks);
	for (size_t i = 0; i < s->n && rc == 0; i++)
		rc = foldsum_put(w, order[i]->key, order[i]->len, order[i]->w, s->two, NULL);
	fk_free(order);
	return rc;
}

/* Read one input as fk_parse_input would, with pl's log prefix. */
static int fs_input(struct foldsum *s, const struct fk_plugin *pl, const char *path, int progress,
                    bool detected)
{
	struct fk_input in;
	FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE);
	int rc = fk_input_start(&in, path, cx, progress);

	if (rc < 0)
		return rc;
	if (detected)
		fk_log(FK_LOG_INFO, "%s: detected format %s", in.name, pl->d.h.name);
	{
		FK_CTX_SCOPE(pcx, .plugin = pl);
		rc = foldsum_read(s, &in);
	}
	if (rc == 0 && in.error)
		rc = in.error;
	if (rc == 0)
		fk_input_report(&in);
	fk_ctx_fail(cx, rc);
	fk_input_close(&in);
	return rc;
}

int fk_foldsum_run(const struct fk_registry *r, const struct fk_plugin *pl,
                   const char *const *files, size_t nfiles, const char *outpath, int progress,
                   bool detected)
{
	struct foldsum s;
	struct fk_writer w;
	int rc;

	memset(&s, 0, sizeof s);
	if ((rc = fk_output_not_input(outpath, files, nfiles)) < 0)
		return rc;
	/* the output first: an unwritable one fails before a long read */
	if ((rc = fk_writer_open(&w, outpath)) < 0)
		return rc;
	if ((rc = foldsum_grow(&s)) < 0)
		fk_log(FK_LOG_ERROR, "out of memory");
	for (size_t k = 0; k < nfiles && rc == 0; k++)
		rc = fs_input(&s, pl, files[k], progress, detected);
	if (rc == 0) {
		const struct fk_plugin *out = fk_registry_find(r, FK_PLUGIN_OUTPUT, "folded");
		FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE,
		             .instance = outpath && strcmp(outpath, "-") ? outpath : NULL);
		{
			FK_CTX_SCOPE(pcx, .plugin = out);
			rc = fs_write(&s, &w);
		}
		if (rc == 0 && w.error)
			rc = w.error;
		if (rc < 0 && w.epipe)
			rc = 0; /* the reader has what it wanted */
		fk_ctx_fail(cx, rc);
	}
	if (rc == 0)
		rc = fk_writer_commit(&w);
	else
		fk_writer_abort(&w);
	foldsum_free(&s);
	return rc;
}

const struct fk_plugin *fk_foldsum_detect(const struct fk_registry *r,
                                          const struct fk_plugin *in_pl,
                                          const char *const *files, size_t nfiles)
{
	const struct fk_plugin *folded = fk_registry_find(r, FK_PLUGIN_INPUT, "folded");

	if (!folded)
		return NULL;
	if (in_pl)
		return in_pl == folded ? folded : NULL;
	/* --format auto: only regular files, which the pipeline can open again
	 * and detect for itself (with its own messages) when one is not folded */
	for (size_t k = 0; k < nfiles && folded; k++) {
		FK_CTX_SCOPE(quiet, .flags = FK_CTX_QUIET);
		struct fk_input in;
		const struct fk_plugin *pl = NULL;
		struct stat st;
		if (!files[k] || strcmp(files[k], "-") == 0 || stat(files[k], &st) < 0 ||
		    !S_ISREG(st.st_mode) || fk_input_open(&in, files[k]) < 0) {
			folded = NULL;
			break;
		}
		if (fk_detect(r, &in, &pl) < 0 || pl != folded)
			folded = NULL;
		fk_input_close(&in);
	}
	return folded;
}

/* Whether input spec s, read by the folded plugin fold, is summed as it
 * is: series 0, whole, no options to apply once detected, names left as
 * they are (the folded plugin has no options of its own). */
static bool plain(const struct fk_input_spec *s, const struct fk_plugin *fold)
{
	if (s->series != 0 || s->shard_n > 1 || s->nopts > 0 || (s->plugin && s->magic_wins))
		return false;
	return s->demangle == FK_DMG_NO ||
	       (s->demangle == FK_DMG_PLUGIN && fk_input_demangle(fold) == FK_DEMANGLE_NO);
}

const struct fk_plugin *fk_foldsum_inputs(const struct fk_pipeline *pl)
{
	const struct fk_plugin *fold = fk_registry_find(pl->reg, FK_PLUGIN_INPUT, "folded");
	const struct fk_plugin *given = NULL;

	if (!fold || pl->filters.n > 0 || pl->ninputs == 0)
		return NULL;
	/* all given as folded, or all left to detection */
	given = pl->inputs[0].plugin;
	for (size_t k = 0; k < pl->ninputs; k++)
		if (pl->inputs[k].plugin != given || !plain(&pl->inputs[k], fold))
			return NULL;
	if (given)
		return given == fold ? fold : NULL;
	for (size_t k = 0; k < pl->ninputs; k++)
		if (!fk_foldsum_detect(pl->reg, NULL, &pl->inputs[k].path, 1))
			return NULL;
	return fold;
}

const struct fk_plugin *fk_foldsum_applies(const struct fk_pipeline *pl)
{
	if (pl->noutputs != 1 ||
	    pl->outputs[0].plugin != fk_registry_find(pl->reg, FK_PLUGIN_OUTPUT, "folded"))
		return NULL;
	return fk_foldsum_inputs(pl);
}
