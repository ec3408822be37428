/*
 * Outputs that draw only the frames wide enough to show, from folded files,
 * without the whole stack tree.  fk_pipeline_run asks fk_prune_profile for
 * any pipeline: `flamekit graph` and a job run by `flamekit run` take the
 * same path.  (This was cli/graphsum.c, a shortcut of the graph command's
 * own; it moved into the engine behind the pipeline, issue 27.)
 *
 * A flame graph draws only the frames at least its minimum width wide, and
 * with many distinct stacks almost every node of the stack tree is
 * narrower: 400,000 distinct stacks 5-25 frames deep make 5.7 million
 * nodes, of which a 1200-pixel graph draws a few thousand.  An output
 * says how wide a frame must be through its min_weight() (ABI 1.3; its
 * contract in <flamekit/plugin.h> is what this file relies on); this file
 * knows no plugin, option or formula.  Here the stacks are summed whole
 * (foldsum.c, memory about their text), sorted so that the stacks under any
 * one frame are adjacent (';' sorts below every other byte), and one pass
 * over them closes each frame with its exact total, as flamegraph.pl's
 * flow() does.  Then only what the layout can see goes into the stack tree:
 * each stack down to its deepest frame wide enough to draw, then the first
 * frame too narrow (it holds the whole weight below it, so the widths and
 * positions of its wider siblings stay exact), then one more frame, so that
 * it still sorts among its siblings as a frame with children does (layout
 * order: a frame's own samples sort by its bare name, its children by
 * "name;").  The output then draws that small tree: the frames it writes,
 * their order and every width are those of the whole tree, so the bytes
 * are the same.  An output that needs the sample log
 * (FK_OUTPUT_NEEDS_SAMPLES) gets one with each line cut instead (below).
 *
 * Taken only where that holds for sure: every output has min_weight() and
 * returns a width (not negative) for the inputs' total, regular folded
 * files (read again by the pipeline when this path gives up), one count a
 * line, every stack's sum a whole number (then totals do not depend on the
 * order of additions), no line skipped or in error (the pipeline reports
 * those itself), no filter, no demangling, no shard, no progress shown.
 * Several outputs share one cut: the smallest of their widths, which the
 * contract allows (any t at most an output's width), when all of them need
 * the sample log or none does (a flame chart's cut follows runs of lines in
 * input order, a graph's the frames' totals: neither serves the other, and
 * such a job takes the whole tree).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calls.h"
#include "fk.h"
#include "foldsum.h"
#include "folded/fkfolded.h"
#include "prune.h"
#include "vector/fkvector.h"

/* Frames narrower than this share of the minimum width are cut: a margin
 * against rounding, since a frame kept too many costs only a node. */
#define MARGIN 0.5

/* What the pipeline asks of its inputs and outputs here: the files, and
 * each output's options (its own, or its defaults made here). */
struct prune {
	const struct fk_pipeline *pl;
	const char **files;
	void **opts, **own;
};

/* The cut of every output for a profile of `total`: the smallest weight
 * any of them draws (their min_weight(), <flamekit/plugin.h>), negative
 * when one of them needs every frame. */
static double min_width(const struct prune *pr, double total)
{
	double m = -1;

	for (size_t i = 0; i < pr->pl->noutputs; i++) {
		double w = fk_call_min_weight(pr->pl->outputs[i].plugin, pr->opts[i], total);
		if (w < 0)
			return -1;
		if (m < 0 || w < m)
			m = w;
	}
	return m;
}

static inline int rank(unsigned char c)
{
	return c == ';' ? -1 : c;
}

/* The first byte where a and b differ, or the shorter length. */
static size_t common(const char *a, size_t na, const char *b, size_t nb)
{
	size_t m = na < nb ? na : nb, i = 0;

	for (; i + 8 <= m; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < m && a[i] == b[i])
		i++;
	return i;
}

static int cmp_grouped(const struct fs_stack *a, const struct fs_stack *b)
{
	size_t i = common(a->key, a->len, b->key, b->len);

	if (i < a->len && i < b->len)
		return rank((unsigned char)a->key[i]) < rank((unsigned char)b->key[i]) ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* A stack with 8 of its bytes in the same order as a number, so that most
 * comparisons of the sort do not read the stacks' text (each one a cache
 * miss): ';' as 0, bytes below it one up, the end as 0 (a tie that the
 * text decides). */
struct sortkey {
	uint64_t k[2];
	const struct fs_stack *s;
};

static int cmp_sortkey(const void *pa, const void *pb)
{
	const struct sortkey *a = pa, *b = pb;

	if (a->k[0] != b->k[0])
		return a->k[0] < b->k[0] ? -1 : 1;
	if (a->k[1] != b->k[1])
		return a->k[1] < b->k[1] ? -1 : 1;
	return cmp_grouped(a->s, b->s);
}

/* The stacks in grouped order.  The 16 bytes are taken after the prefix all
 * stacks share (often "root;" or a thread name). */
static struct fs_stack **sort_grouped(struct foldsum *s)
{
	struct sortkey *v = fk_malloc((s->n ? s->n : 1) * sizeof *v);
	struct fs_stack **order;
	size_t pre = s->n ? s->v[0].len : 0;

	if (!v)
		return NULL;
	for (size_t i = 1; i < s->n; i++) {
		size_t c = common(s->v[0].key, pre, s->v[i].key, s->v[i].len);
		if (c < pre)
			pre = c;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct fs_stack *st = &s->v[i];
		for (size_t h = 0; h < 2; h++) {
			uint64_t k = 0;
			for (size_t j = pre + 8 * h; j < pre + 8 * h + 8; j++) {
				unsigned c = j < st->len ? (unsigned char)st->key[j] : ';';
				k = k << 8 | (c == ';' ? 0 : c < ';' ? c + 1 : c);
			}
			v[i].k[h] = k;
		}
		v[i].s = st;
	}
	qsort(v, s->n, sizeof *v, cmp_sortkey);
	/* the pointers, in place: entry i is read before slot i is written */
	_Static_assert(sizeof *v >= sizeof *order, "pointers fit in the sort keys");
	order = (struct fs_stack **)v;
	for (size_t i = 0; i < s->n; i++)
		order[i] = (struct fs_stack *)v[i].s;
	/* the keys' memory goes to the tree (a failed shrink keeps it all) */
	if (s->n && (order = fk_realloc(v, s->n * sizeof *order)) == NULL)
		order = (struct fs_stack **)v;
	return order;
}

struct open_frame {
	size_t start;        /* the first stack (in sorted order) under it */
	size_t end;          /* where the frame's name ends in that stack */
	double total;
};

/* What the tree needs of each stack (in sorted order): its first `keep`
 * frames are at least thr wide; the next one is cut there, and has a frame
 * below it when `child` (then the frame sorts as "name;" among its siblings,
 * as it does in the whole tree, which matters only when a sibling's name
 * starts with its name). */
struct cut {
	uint32_t keep, child;
};

/* Close frames depth.. *nopen of the flow at stack i: a frame at least thr
 * wide keeps its depth + 1 frames in every stack under it.  A narrower one
 * whose name is a prefix of the next stack's frame there (a sibling's
 * name): its child is pushed.  Frames close deepest first, so a stack's
 * shallowest narrow frame, the one cut, writes `child` last. */
static void close_frames(struct fs_stack **order, size_t n, struct open_frame *of, size_t *nopen,
                         size_t depth, size_t i, double thr, struct cut *cut)
{
	while (*nopen > depth) {
		size_t d = --*nopen;
		const struct fs_stack *s = order[of[d].start];
		if (d > 0)
			of[d - 1].total += of[d].total;
		if (of[d].total >= thr) {
			for (size_t j = of[d].start; j < i; j++)
				if (cut[j].keep < d + 1)
					cut[j].keep = (uint32_t)(d + 1);
		} else if (i < n && common(s->key, s->len, order[i]->key, order[i]->len) >= of[d].end) {
			for (size_t j = of[d].start; j < i; j++)
				cut[j].child = (uint32_t)(d + 1);
		}
	}
}

/* The cut of every stack: frames closed with their totals, in order. */
static int flow(struct fs_stack **order, size_t n, double thr, struct cut *cut)
{
	struct open_frame *of = NULL;
	size_t nopen = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fs_stack *s = order[i];
		size_t c = 0, p = 0, from = 0;
		/* sorted order is random order in memory: fetch ahead */
		if (i + 8 < n)
			__builtin_prefetch(order[i + 8]);
		if (i + 4 < n)
			__builtin_prefetch(order[i + 4]->key);
		cut[i].keep = cut[i].child = 0;
		if (i > 0) {
			const struct fs_stack *q = order[i - 1];
			p = common(q->key, q->len, s->key, s->len);
			/* the frames the previous stack shares, and where the rest start */
			for (size_t k = 0; k < p; k++)
				if (s->key[k] == ';') {
					c++;
					from = k + 1;
				}
			if (p == (q->len < s->len ? q->len : s->len) &&
			    (p == s->len || s->key[p] == ';') && (p == q->len || q->key[p] == ';')) {
				c++;
				from = p + 1;
			}
		}
		close_frames(order, n, of, &nopen, c, i, thr, cut);
		for (size_t k = from, nf = c; k <= s->len; k++) {
			if (k < s->len && s->key[k] != ';')
				continue;
			if (fk_vector_grow((void **)&of, &cap, nf + 1, sizeof *of, fk_realloc) < 0) {
				fk_free(of);
				return FK_ERR_NOMEM;
			}
			of[nf].start = i;
			of[nf].end = k;
			of[nf].total = 0;
			nopen = ++nf;
		}
		of[nopen - 1].total += s->w[0];
	}
	close_frames(order, n, of, &nopen, 0, n, thr, cut);
	fk_free(of);
	return 0;
}

/* Push stack s cut after `want` frames (all of them when it has fewer). */
static int push_cut(struct fk_sink *sink, const struct fs_stack *s, size_t want,
                    struct fk_frameref **fr, size_t *frcap)
{
	struct fk_sample smp;
	size_t nf = 0;
	fk_node_t node;

	for (const char *k = s->key, *e = s->key + s->len, *semi; k <= e && nf < want; k = semi + 1) {
		if (!(semi = memchr(k, ';', (size_t)(e - k))))
			semi = e;
		if (fk_vector_grow((void **)fr, frcap, nf + 1, sizeof **fr, fk_realloc) < 0)
			return FK_ERR_NOMEM;
		memset(&(*fr)[nf], 0, sizeof (*fr)[nf]);
		(*fr)[nf].name = k;
		(*fr)[nf].len = (size_t)(semi - k);
		nf++;
	}
	memset(&smp, 0, sizeof smp);
	smp.weight[0] = s->w[0];
	smp.frames = *fr;
	smp.nframes = nf;
	return fk_sink_push(sink, &smp, &node);
}

/* The tree of what a graph at least thr wide per frame draws, into p. */
static int build(struct foldsum *s, double thr, struct fk_profile *p)
{
	struct fs_stack **order = sort_grouped(s);
	struct cut *cut = fk_malloc((s->n ? s->n : 1) * sizeof *cut);
	struct fk_frameref *fr = NULL;
	size_t frcap = 0;
	struct fk_sink sink;
	int rc = FK_ERR_NOMEM;

	fk_sink_init(&sink, p, 0, 1, NULL);
	if (!order || !cut)
		goto out;
	if ((rc = flow(order, s->n, thr, cut)) < 0)
		goto out;
	if (s->nempty) {
		struct fs_stack root = { "", 0, { s->empty[0], 0 } };
		if ((rc = push_cut(&sink, &root, 0, &fr, &frcap)) < 0)
			goto out;
	}
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		if (i + 8 < s->n)
			__builtin_prefetch(order[i + 8]);
		if (i + 4 < s->n)
			__builtin_prefetch(order[i + 4]->key);
		rc = push_cut(&sink, order[i], (size_t)cut[i].keep + 1 + (cut[i].child == cut[i].keep + 1),
		              &fr, &frcap);
	}
out:
	fk_sink_fini(&sink);
	fk_free(fr);
	fk_free(cut);
	fk_free(order);
	return rc;
}

/* Read every file silently; false when the pipeline must read them (an
 * error, a skipped line, two counts, a fractional sum). */
static bool read_all(const char **files, size_t nfiles, struct foldsum *s, double *total)
{
	int rc = foldsum_grow(s);

	for (size_t k = 0; k < nfiles && rc == 0; k++) {
		FK_CTX_SCOPE(quiet, .flags = FK_CTX_QUIET); /* the pipeline says what is wrong */
		struct fk_input_params prm = { 0 };
		struct fk_input in;
		if ((rc = fk_input_open_with(&in, files[k], &prm)) < 0)
			break;
		rc = foldsum_read(s, &in);
		if (rc == 0 && (in.error || in.skipped))
			rc = FK_ERR_DATA;
		fk_input_close(&in);
	}
	/* the lookup table is not needed any more: its memory goes to the tree */
	fk_free(s->slots);
	s->slots = NULL;
	if (rc < 0 || s->two)
		return false;
	if (s->n && s->n < s->cap) { /* the table's spare room goes to the tree */
		struct fs_stack *v = fk_realloc(s->v, s->n * sizeof *v);
		if (v) {
			s->v = v;
			s->cap = s->n;
		}
	}
	*total = s->empty[0];
	if (s->empty[0] != floor(s->empty[0]))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].w[0] != floor(s->v[i].w[0]))
			return false;
		*total += s->v[i].w[0];
	}
	return *total < 9007199254740992.0; /* 2^53: sums exact in any order */
}

/*
 * A flame chart (an output that needs the sample log) lays the lines out
 * in input order, merging a frame only with the same frame of the line before.
 * Three passes over the files, each reading them as the folded plugin
 * does: the total (so the minimum width), the width of every run of a
 * frame (lines [start, i) while it stays open), and then the sample log,
 * each line cut before its first frame too narrow to draw.  A run of a
 * frame ends where a line does not share it, which only frames above it
 * decide: the frames wide enough close in the same order, at the same
 * times, so the chart writes the same frames (narrower ones it skips).
 */
struct chart {
	uint32_t *keep;      /* a line's frames wider than the threshold */
	size_t n, cap;       /* lines with a stack (or an empty one) so far */
	struct open_frame *of;
	size_t nopen, ofcap;
	char *prev;          /* the line before */
	size_t prevlen, prevcap, prevnf;
	double total, thr;
};

/* One line of a pass (below). */
static int chart_line(struct chart *ch, int pass, const char *line, size_t len, double w,
                      struct fk_sink *sink, struct fk_frameref **fr, size_t *frcap);

/* One pass over every file: pass 0 sums, 1 measures, 2 pushes into sink;
 * false when the pipeline must read them (as read_all). */
static bool chart_pass(struct chart *ch, int pass, const char **files, size_t nfiles,
                       struct fk_sink *sink, int *status)
{
	struct fk_frameref *fr = NULL;
	size_t frcap = 0;
	int rc = 0;
	bool two = false;

	for (size_t k = 0; k < nfiles && rc == 0; k++) {
		FK_CTX_SCOPE(quiet, .flags = FK_CTX_QUIET); /* the pipeline reports what goes wrong */
		struct fk_input_params prm = { 0 };
		struct fk_input in;
		const char *line;
		size_t len;
		if ((rc = fk_input_open_with(&in, files[k], &prm)) < 0)
			break;
		while (rc == 0 && (rc = fk_input_getline(&in, &line, &len)) > 0) {
			double w[2];
			int t;
			long sl = fk_folded_line(line, len, w, &t);
			rc = 0;
			if (sl < 0) {
				if (len > 0)
					rc = FK_ERR_DATA; /* skipped: the pipeline says so */
				continue;
			}
			two |= t;
			rc = chart_line(ch, pass, line, fk_folded_trim(line, (size_t)sl), w[0], sink, &fr, &frcap);
		}
		if (rc == 0 && in.error)
			rc = in.error;
		fk_input_close(&in);
	}
	fk_free(fr);
	*status = rc;
	return rc == 0 && !two;
}

static int chart_line(struct chart *ch, int pass, const char *line, size_t len, double w,
                      struct fk_sink *sink, struct fk_frameref **fr, size_t *frcap)
{
	size_t i = ch->n++, c = 0, p = 0, from = 0, nf;

	if (pass == 0) {
		ch->total += w;
		return 0;
	}
	if (pass == 2) {
		struct fs_stack st = { line, len, { w, 0 } };
		return push_cut(sink, &st, ch->keep[i], fr, frcap);
	}
	if (fk_vector_grow((void **)&ch->keep, &ch->cap, ch->n, sizeof *ch->keep, fk_realloc) < 0)
		return FK_ERR_NOMEM;
	ch->keep[i] = 0;
	if (ch->prevnf && len) {
		p = common(ch->prev, ch->prevlen, line, len);
		for (size_t k = 0; k < p; k++)
			if (line[k] == ';') {
				c++;
				from = k + 1;
			}
		if (p == (ch->prevlen < len ? ch->prevlen : len) && (p == len || line[p] == ';') &&
		    (p == ch->prevlen || ch->prev[p] == ';')) {
			c++;
			from = p + 1;
		}
	}
	/* close what this line does not share (no extension check: a chart
	 * keeps input order, not name order) */
	while (ch->nopen > c) {
		size_t d = --ch->nopen;
		if (d > 0)
			ch->of[d - 1].total += ch->of[d].total;
		if (ch->of[d].total >= ch->thr)
			for (size_t j = ch->of[d].start; j < i; j++)
				if (ch->keep[j] < d + 1)
					ch->keep[j] = (uint32_t)(d + 1);
	}
	for (size_t k = from; len && k <= len; k++) {
		if (k < len && line[k] != ';')
			continue;
		if (fk_vector_grow((void **)&ch->of, &ch->ofcap, ch->nopen + 1, sizeof *ch->of,
		                   fk_realloc) < 0)
			return FK_ERR_NOMEM;
		ch->of[ch->nopen].start = i;
		ch->of[ch->nopen].total = 0;
		ch->nopen++;
	}
	nf = ch->nopen;
	if (nf)
		ch->of[nf - 1].total += w;
	if (fk_vector_grow((void **)&ch->prev, &ch->prevcap, len, 1, fk_realloc) < 0)
		return FK_ERR_NOMEM;
	if (len) /* an empty stack (the root's own weight) has no bytes, and maybe no buffer yet */
		memcpy(ch->prev, line, len);
	ch->prevlen = len;
	ch->prevnf = nf;
	return 0;
}

/* The flame chart's profile: the sample log of the cut lines, into p;
 * false when the pipeline must read the files (as read_all). */
static bool chart_build(const struct prune *pr, struct fk_profile *p, double *thr)
{
	const char **files = pr->files;
	size_t nfiles = pr->pl->ninputs;
	struct chart ch;
	struct fk_sink sink;
	double minw;
	bool ok = false;
	int status;

	memset(&ch, 0, sizeof ch);
	if (!chart_pass(&ch, 0, files, nfiles, NULL, &status) || (minw = min_width(pr, ch.total)) < 0)
		goto out;
	*thr = ch.thr = minw * MARGIN;
	ch.n = 0;
	if (!chart_pass(&ch, 1, files, nfiles, NULL, &status))
		goto out;
	/* close the last line's frames */
	ch.prevnf = 0;
	if (chart_line(&ch, 1, "", 0, 0, NULL, NULL, NULL) < 0)
		goto out;
	ch.n = 0;
	p->keep_samples = true;
	fk_sink_init(&sink, p, 0, 1, NULL);
	ok = chart_pass(&ch, 2, files, nfiles, &sink, &status);
	fk_sink_fini(&sink);
out:
	fk_free(ch.keep);
	fk_free(ch.of);
	fk_free(ch.prev);
	return ok;
}

/* The inputs regular files, every output one that says what it cannot
 * draw (min_weight, ABI 1.3; the loader reads it as NULL from an older
 * plugin), all of them needing the sample log (*chart) or none, and no
 * progress to show; the pipeline has checked the outputs' options. */
static bool fits(const struct fk_pipeline *pl, bool *chart)
{
	if (pl->noutputs == 0 || pl->progress == 2 || (pl->progress == 1 && isatty(STDERR_FILENO)))
		return false;
	*chart = fk_output_needs(pl->outputs[0].plugin) & FK_OUTPUT_NEEDS_SAMPLES;
	for (size_t i = 0; i < pl->noutputs; i++) {
		const struct fk_plugin *o = pl->outputs[i].plugin;
		if (!fk_plugin_has(o, FK_CB_MIN_WEIGHT) ||
		    (bool)(fk_output_needs(o) & FK_OUTPUT_NEEDS_SAMPLES) != *chart)
			return false;
	}
	for (size_t k = 0; k < pl->ninputs; k++) {
		struct stat st;
		const char *f = pl->inputs[k].path;
		if (!f || strcmp(f, "-") == 0 || stat(f, &st) < 0 || !S_ISREG(st.st_mode))
			return false;
	}
	return true;
}

/* pr's files and options; false when memory runs out (the pipeline then
 * reads the inputs, and says so). */
static bool prune_init(struct prune *pr, const struct fk_pipeline *pl)
{
	pr->pl = pl;
	pr->files = fk_calloc(pl->ninputs, sizeof *pr->files);
	pr->opts = fk_calloc(pl->noutputs, sizeof *pr->opts);
	pr->own = fk_calloc(pl->noutputs, sizeof *pr->own);
	if (!pr->files || !pr->opts || !pr->own)
		return false;
	for (size_t k = 0; k < pl->ninputs; k++)
		pr->files[k] = pl->inputs[k].path;
	for (size_t i = 0; i < pl->noutputs; i++) {
		if (!(pr->opts[i] = pl->outputs[i].opts) &&
		    fk_options_new(pl->outputs[i].plugin, &pr->own[i]) < 0)
			return false;
		if (!pr->opts[i])
			pr->opts[i] = pr->own[i];
	}
	return true;
}

static void prune_free(struct prune *pr)
{
	for (size_t i = 0; pr->own && i < pr->pl->noutputs; i++)
		fk_options_free(pr->pl->outputs[i].plugin, pr->own[i]);
	fk_free(pr->own);
	fk_free(pr->opts);
	fk_free(pr->files);
}

int fk_prune_profile(const struct fk_pipeline *pl, struct fk_profile **pp, bool *taken)
{
	const struct fk_plugin *folded;
	struct prune pr = { 0 };
	struct foldsum s = { 0 };
	struct fk_profile *p = NULL;
	double total, minw, thr = 0;
	bool chart;
	int rc = 0;

	*taken = false;
	if (!fits(pl, &chart) || !(folded = fk_foldsum_inputs(pl)) || !prune_init(&pr, pl) ||
	    !(p = fk_profile_new()))
		goto out;
	if (chart) {
		if (!chart_build(&pr, p, &thr))
			goto out;
	} else {
		if (!read_all(pr.files, pl->ninputs, &s, &total) || (minw = min_width(&pr, total)) < 0)
			goto out;
		thr = minw * MARGIN;
		rc = build(&s, thr, p);
	}
	*taken = true;
	for (size_t k = 0; !pl->inputs[0].plugin && k < pl->ninputs; k++)
		fk_log(FK_LOG_INFO, "%s: detected format %s", pr.files[k], folded->d.h.name);
	if (rc < 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		goto out;
	}
	if (chart)
		fk_log(FK_LOG_DEBUG, "pruned: each line cut before its first run of a frame narrower "
		       "than %g, %" PRIu32 " nodes", thr, p->tree.nnodes);
	else
		fk_log(FK_LOG_DEBUG, "pruned: a stack tree of only the frames at least %g wide, %"
		       PRIu32 " nodes", thr, p->tree.nnodes);
	fk_profile_free(*pp);
	*pp = p;
	p = NULL;
out:
	fk_profile_free(p);
	foldsum_free(&s);
	prune_free(&pr);
	return rc;
}
