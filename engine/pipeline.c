/*
 * The pipeline every command shares: inputs -> (filters) -> merged profile
 * -> outputs.  Outputs go to temporary files that are renamed into place
 * only when every input, filter and output has succeeded.
 */
#include <string.h>
#include <unistd.h>

#include "fk.h"
#include "foldsum.h"
#include "prune.h"

#define PROBE_BYTES (64 * 1024)

/* Nothing but blank space: a format cannot be told, and there is nothing
 * to read either. */
static bool blank(const unsigned char *d, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (d[k] != ' ' && d[k] != '\t' && d[k] != '\r' && d[k] != '\n')
			return false;
	return true;
}

int fk_detect(const struct fk_registry *r, struct fk_input *in, const struct fk_plugin **out)
{
	const unsigned char *data;
	ssize_t n = fk_input_peek(in, PROBE_BYTES, &data);
	const struct fk_plugin *best = NULL;
	int bestscore = 0;
	struct fk_buf tried = { 0 };

	*out = NULL;
	if (n < 0)
		return (int)n;
	if (n < PROBE_BYTES && blank(data, (size_t)n)) {
		/* As an empty folded file: no stacks, status 0. */
		fk_log(FK_LOG_INFO, "%s: the input is empty", in->name);
		return 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct fk_plugin *pl = r->v[i];
		int score;
		if ((score = fk_call_probe(pl, data, (size_t)n)) < 0)
			continue; /* no probe (or no input plugin): never picked */
		if (score > bestscore) {
			bestscore = score;
			best = pl;
		}
		fk_buf_printf(&tried, "%s%s", tried.len ? ", " : "", pl->d.h.name);
	}
	if (!best) {
		fk_log(FK_LOG_ERROR, "%s: cannot tell the input format (tried: %s); give one "
		       "with --format NAME", in->name, tried.data ? tried.data : "no input plugins loaded");
		fk_buf_free(&tried);
		return FK_ERR_DATA;
	}
	fk_buf_free(&tried);
	fk_log(FK_LOG_INFO, "%s: detected format %s", in->name, best->d.h.name);
	*out = best;
	return 0;
}

int fk_probe_print(const struct fk_registry *r, const char *path, FILE *f)
{
	struct fk_input in;
	const unsigned char *data;
	const struct fk_plugin **pl = NULL;
	int *score = NULL, rc;
	size_t m = 0;
	ssize_t n;
	FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE);

	if ((rc = fk_input_start(&in, path, cx, 0)) < 0)
		return rc;
	if ((n = fk_input_peek(&in, PROBE_BYTES, &data)) < 0) {
		rc = (int)n;
		goto out;
	}
	if (n < PROBE_BYTES && blank(data, (size_t)n)) {
		fprintf(f, "%s: empty\n", in.name);
		goto out;
	}
	pl = fk_calloc(r->n ? r->n : 1, sizeof *pl);
	score = fk_calloc(r->n ? r->n : 1, sizeof *score);
	if (!pl || !score) {
		fk_log(FK_LOG_ERROR, "out of memory");
		rc = FK_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n; i++) {
		int s = fk_call_probe(r->v[i], data, (size_t)n);
		size_t k = m;
		if (s <= 0)
			continue;
		for (; k > 0 && score[k - 1] < s; k--) { /* stable: ties keep load order */
			pl[k] = pl[k - 1];
			score[k] = score[k - 1];
		}
		pl[k] = r->v[i];
		score[k] = s;
		m++;
	}
	fprintf(f, "%s: %s", in.name, m ? pl[0]->d.h.name : "none");
	for (size_t k = 0; k < m; k++)
		fprintf(f, "%s%s %d", k ? ", " : " (", pl[k]->d.h.name, score[k]);
	fputs(m ? ")\n" : "\n", f);
out:
	fk_free(pl);
	fk_free(score);
	cx->instance = NULL;
	fk_input_close(&in);
	return rc;
}

/* The plugin whose probe is certain (100) of the first bytes of `in`. */
static const struct fk_plugin *certain_format(const struct fk_registry *r, struct fk_input *in)
{
	const unsigned char *data;
	ssize_t n = fk_input_peek(in, PROBE_BYTES, &data);

	for (size_t i = 0; n > 0 && i < r->n; i++) {
		const struct fk_plugin *pl = r->v[i];
		if (fk_call_probe(pl, data, (size_t)n) >= 100)
			return pl;
	}
	return NULL;
}

/* UTF-16 text (what PowerShell's '>' writes): a byte-order mark, or ASCII
 * with every other byte zero.  Every parser would read it as NUL-ridden
 * garbage, so it is refused by name, whatever the format. */
static bool utf16(const unsigned char *d, size_t n)
{
	size_t zeven = 0, zodd = 0, pairs;

	if (n >= 2 && ((d[0] == 0xff && d[1] == 0xfe) || (d[0] == 0xfe && d[1] == 0xff)))
		return true;
	pairs = (n > 4096 ? 4096 : n) / 2;
	if (pairs < 4)
		return false;
	for (size_t k = 0; k < pairs; k++) {
		zeven += d[2 * k] == 0;
		zodd += d[2 * k + 1] == 0;
	}
	return (zodd * 10 >= pairs * 9 && zeven * 10 < pairs) ||
	       (zeven * 10 >= pairs * 9 && zodd * 10 < pairs);
}

static int refuse_utf16(struct fk_input *in)
{
	const unsigned char *data;
	ssize_t n = fk_input_peek(in, 4096, &data);

	if (n < 0)
		return (int)n;
	if (!utf16(data, (size_t)n))
		return 0;
	fk_log(FK_LOG_ERROR, "%s: the input is UTF-16 text, which flamekit does not read; convert it "
	       "to UTF-8 first (iconv -f UTF-16 -t UTF-8)", in->name);
	return FK_ERR_DATA;
}

int fk_input_start(struct fk_input *in, const char *path, struct fk_ctx *cx, int progress)
{
	int rc = fk_input_open(in, path);

	if (rc < 0)
		return rc;
	cx->instance = in->name;
	in->ctx = cx;
	in->progress = progress == 2 || (progress == 1 && isatty(STDERR_FILENO));
	if ((rc = refuse_utf16(in)) < 0) {
		cx->instance = NULL;
		fk_input_close(in);
	}
	return rc;
}

/* Parse `in` with plugin in->plugin into p, the input's own steps (its
 * demangling) run on its frames alone, before the pipeline's filters:
 * at push time when some filter is per-sample (which then sees the
 * steps' names); else once the input is read, on a profile of its own
 * merged into p afterwards (p itself when it is still empty). */
static int parse_steps(const struct fk_registry *r, const struct fk_input_spec *spec,
                       struct fk_input *in, const void *opts, struct fk_profile *p,
                       struct fk_filter_chain *filters, struct fk_filter_chain *steps,
                       unsigned threads)
{
	const struct fk_plugin *pl = in->plugin;
	bool at_push = steps->n && filters && filters->has_sample;
	struct fk_profile *t = p;
	struct fk_sink sink;
	int rc;

	if (steps->n && !at_push && !fk_profile_empty(p)) {
		if (!(t = fk_profile_new())) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return FK_ERR_NOMEM;
		}
		t->keep_samples = p->keep_samples;
	}
	fk_sink_init(&sink, t, spec->series, threads, filters);
	sink.pre = at_push ? steps : NULL;
	sink.reg = r;
	sink.name = in->name;
	rc = fk_call_parse(pl, in, &sink, opts);
	fk_sink_fini(&sink);
	if (rc == 0 && in->error)
		rc = in->error;
	if (rc == 0 && sink.time_refused) /* reported; a plugin may ignore push's status */
		rc = FK_ERR_DATA;
	if (rc == 0 && steps->n && !at_push)
		rc = fk_profile_apply_frame_filters(&t, steps);
	if (t != p) {
		if (rc == 0 && t->declared) { /* the pipeline's mixed-units warning */
			fk_free(p->declared);
			p->declared = t->declared;
			t->declared = NULL;
		}
		if (rc == 0)
			rc = fk_profile_absorb(p, t);
		fk_profile_free(t);
	}
	return rc;
}

int fk_parse_input(const struct fk_registry *r, const struct fk_input_spec *spec,
                   struct fk_profile *p, struct fk_filter_chain *filters,
                   unsigned threads, int progress)
{
	struct fk_input in;
	struct fk_filter_chain steps = { 0 };
	const struct fk_plugin *pl = spec->plugin;
	void *opts = spec->opts, *own = NULL;
	int rc;
	/* the engine speaks for the input; the plugin only while it parses */
	FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE);

	if ((rc = fk_input_start(&in, spec->path, cx, progress)) < 0)
		return rc;
	in.demangle = spec->demangle;
	if (!pl && (rc = fk_detect(r, &in, &pl)) < 0)
		goto out;
	if (!pl)
		goto out; /* empty */
	if (spec->magic_wins) {
		const struct fk_plugin *sure = certain_format(r, &in);
		if (sure && sure != pl) {
			fk_log(FK_LOG_INFO, "%s: detected format %s", in.name, sure->d.h.name);
			pl = sure;
			opts = NULL;
		}
	}
	if (!opts) {
		rc = fk_options_new(pl, &own);
		if (rc < 0)
			goto out;
		opts = own;
		for (size_t i = 0; i < spec->nopts; i++) {
			char err[512];
			if (!fk_option_find(pl, spec->optnames[i])) {
				fk_log(FK_LOG_ERROR, "%s: the input is %s, and the %s plugin has no option "
				       "'--%s'", in.name, pl->d.h.name, pl->d.h.name, spec->optnames[i]);
				rc = FK_ERR_USAGE;
				goto out;
			}
			rc = fk_option_set(pl, opts, spec->optnames[i], spec->optvalues[i], err, sizeof err);
			if (rc < 0) {
				fk_log(FK_LOG_ERROR, "%s: %s", in.name, err);
				goto out;
			}
		}
	}
	if (!spec->plugin && (rc = fk_options_check(pl, opts, spec->where)) < 0)
		goto out;
	if (spec->shard_n > 1 && (rc = fk_input_shard(&in, pl, spec->shard_k, spec->shard_n)) < 0)
		goto out;
	in.plugin = pl;
	if ((rc = fk_input_steps(r, spec, pl, filters, in.name, &steps)) == 0)
		rc = parse_steps(r, spec, &in, opts, p, filters, &steps, threads);
	fk_filter_chain_free(&steps);
	if (rc == 0)
		fk_input_report(&in);
out:
	if (pl)
		fk_options_free(pl, own);
	fk_ctx_fail(cx, rc);
	fk_input_close(&in);
	return rc;
}

static bool is_stdout(const struct fk_output_spec *o)
{
	return !o->path || strcmp(o->path, "-") == 0;
}

static int render_one(const struct fk_output_spec *o, struct fk_profile *p, struct fk_writer *w)
{
	void *opts = o->opts, *own = NULL;
	int rc;
	FK_CTX_SCOPE(cx, .flags = FK_CTX_ENGINE);

	if (!opts) {
		rc = fk_options_new(o->plugin, &own);
		if (rc < 0)
			return fk_ctx_fail(cx, rc);
		opts = own;
	}
	rc = fk_call_render(o->plugin, p, w, opts);
	fk_options_free(o->plugin, own);
	if (rc == 0 && w->error)
		rc = w->error;
	if (rc < 0 && w->epipe)
		rc = 0; /* the reader has what it wanted */
	cx->instance = is_stdout(o) ? NULL : o->path;
	return fk_ctx_fail(cx, rc);
}

/* Two outputs into one file: the second would silently replace the first;
 * an output that is an input would replace what is read.  (A job reports
 * these at load time with its file:line:col; this catches the commands.) */
static int check_same_outputs(const struct fk_pipeline *pl)
{
	for (size_t i = 0; i < pl->noutputs; i++) {
		for (size_t k = 0; k < pl->ninputs; k++)
			if (!is_stdout(&pl->outputs[i]) &&
			    fk_output_not_input(pl->outputs[i].path, &pl->inputs[k].path, 1) < 0)
				return FK_ERR_USAGE;
		for (size_t k = 0; k < i; k++)
			if (!is_stdout(&pl->outputs[i]) && !is_stdout(&pl->outputs[k]) &&
			    fk_output_same(pl->outputs[k].path, pl->outputs[i].path)) {
				fk_log(FK_LOG_ERROR, "two outputs write the same file: \"%s\" and \"%s\"",
				       pl->outputs[k].path, pl->outputs[i].path);
				return FK_ERR_USAGE;
			}
	}
	return 0;
}

/* Create every output (as a temporary): an unwritable one fails the run
 * before a long parse, and leaves the others untouched. */
static int open_all(const struct fk_pipeline *pl, struct fk_writer **out, size_t *opened)
{
	struct fk_writer *w = fk_calloc(pl->noutputs ? pl->noutputs : 1, sizeof *w);
	int rc;

	*out = w;
	*opened = 0;
	if (!w) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	if ((rc = check_same_outputs(pl)) < 0)
		return rc;
	for (size_t i = 0; i < pl->noutputs; i++) {
		if ((rc = fk_writer_open(&w[i], pl->outputs[i].path)) < 0)
			return rc;
		++*opened;
	}
	return 0;
}

/* Render into the open writers, files first and what is written in place
 * (stdout, devices, FIFOs) last, so a failure leaves no stream half-fed; finish
 * (flush, close) them all, and rename them only when all succeeded.  With
 * rc < 0 on entry, only aborts.  Frees w. */
static int render_all(struct fk_pipeline *pl, struct fk_profile *p, struct fk_writer *w,
                      size_t opened, int rc)
{
	size_t i;

	if (rc == 0) {
		FK_CTX_CALL(cx);
		rc = fk_ctx_fail(cx, fk_profile_finish(p));
	}
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (i = 0; i < pl->noutputs && rc == 0; i++)
			if ((is_stdout(&pl->outputs[i]) || w[i].direct) == (pass == 1))
				rc = render_one(&pl->outputs[i], p, &w[i]);
	for (i = 0; i < opened && rc == 0; i++)
		rc = fk_writer_finish(&w[i]);
	if (rc == 0) {
		/* Every temporary is complete and closed; only renames are left. */
		for (i = 0; i < opened; i++) {
			int c = fk_writer_commit(&w[i]);
			if (c < 0 && rc == 0)
				rc = c;
		}
		opened = 0;
	}
	for (i = 0; i < opened; i++)
		fk_writer_abort(&w[i]);
	fk_free(w);
	return rc;
}

/* Run the check callback of every plugin whose options are known before
 * any input is read (an auto-detected input's plugin is checked once it
 * is known, in fk_parse_input).  Options left NULL get their defaults. */
static int check_one(const struct fk_plugin *plugin, const void *opts, const char *where)
{
	void *own = NULL;
	int rc;

	if (!opts) {
		if ((rc = fk_options_new(plugin, &own)) < 0) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return rc;
		}
		opts = own;
	}
	rc = fk_options_check(plugin, opts, where);
	fk_options_free(plugin, own);
	return rc;
}

static int check_all(const struct fk_pipeline *pl)
{
	int rc = 0;

	for (size_t i = 0; i < pl->noutputs && rc == 0; i++)
		rc = check_one(pl->outputs[i].plugin, pl->outputs[i].opts, pl->outputs[i].where);
	for (size_t i = 0; i < pl->ninputs && rc == 0; i++)
		if (pl->inputs[i].plugin && !(i > 0 && pl->inputs[i].opts == pl->inputs[i - 1].opts &&
		                             pl->inputs[i].plugin == pl->inputs[i - 1].plugin))
			rc = check_one(pl->inputs[i].plugin, pl->inputs[i].opts, pl->inputs[i].where);
	return rc;
}

/* Inputs whose weights are in different units (instruments in ms, perf
 * --offcpu in us, sample counts) are added together as they are: say so
 * once, naming each input that declared a unit and its unit.  units[i]:
 * input i's, NULL when its plugin declares none (folded counts). */
static void warn_mixed_units(const struct fk_pipeline *pl, char **units)
{
	struct fk_buf b = { 0 };
	bool mixed = false;

	for (size_t i = 0; i < pl->ninputs; i++) {
		if (!units[i])
			continue;
		/* only weights that are added: a differential's two series are not */
		for (size_t k = 0; k < i; k++)
			if (units[k] && pl->inputs[k].series == pl->inputs[i].series &&
			    strcmp(units[k], units[i]) != 0)
				mixed = true;
		fk_buf_printf(&b, "%s%s (%s)", b.len ? ", " : "", pl->inputs[i].path ? pl->inputs[i].path : "-",
		              units[i]);
	}
	if (mixed && b.data)
		fk_log(FK_LOG_WARN, "the inputs' weights are in different units and are added as they "
		       "are: %s", b.data);
	fk_buf_free(&b);
}

/* Folded in, folded out: summed without the stack tree (foldsum.c). */
static int foldsum(const struct fk_pipeline *pl, const struct fk_plugin *fold)
{
	const char **files = fk_calloc(pl->ninputs, sizeof *files);
	int rc;

	if (!files) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	for (size_t i = 0; i < pl->ninputs; i++)
		files[i] = pl->inputs[i].path ? pl->inputs[i].path : "-";
	rc = fk_foldsum_run(pl->reg, fold, files, pl->ninputs, pl->outputs[0].path, pl->progress,
	                    pl->inputs[0].plugin == NULL);
	fk_free(files);
	return rc;
}

int fk_pipeline_run(struct fk_pipeline *pl)
{
	const struct fk_plugin *fold = fk_foldsum_applies(pl);
	struct fk_profile *p;
	struct fk_writer *w = NULL;
	char **units = NULL;
	size_t opened = 0, i;
	int rc = 0;
	bool pruned = false;

	if (fold)
		return foldsum(pl, fold);
	if (!(p = fk_profile_new())) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	for (i = 0; i < pl->noutputs; i++)
		if (fk_output_needs(pl->outputs[i].plugin) & FK_OUTPUT_NEEDS_SAMPLES)
			p->keep_samples = true;
	if ((rc = check_all(pl)) < 0) {
		fk_profile_free(p);
		return rc;
	}
	rc = open_all(pl, &w, &opened);
	units = fk_calloc(pl->ninputs ? pl->ninputs : 1, sizeof *units);
	if (!units && rc == 0) {
		fk_log(FK_LOG_ERROR, "out of memory");
		rc = FK_ERR_NOMEM;
	}
	/* folded files into outputs that draw only wide frames: a profile of
	 * those frames alone (prune.c); else every input parsed whole */
	if (rc == 0)
		rc = fk_prune_profile(pl, &p, &pruned);
	for (i = 0; i < pl->ninputs && rc == 0 && !pruned; i++) {
		rc = fk_parse_input(pl->reg, &pl->inputs[i], p, &pl->filters, pl->threads, pl->progress);
		units[i] = p->declared; /* taken: the next input declares its own */
		p->declared = NULL;
	}
	if (rc == 0)
		warn_mixed_units(pl, units);
	for (i = 0; units && i < pl->ninputs; i++)
		fk_free(units[i]);
	fk_free(units);
	if (rc == 0) {
		FK_CTX_CALL(cx);
		rc = fk_ctx_fail(cx, fk_profile_apply_frame_filters(&p, &pl->filters));
	}
	rc = render_all(pl, p, w, opened, rc);
	fk_profile_free(p);
	return rc;
}

int fk_pipeline_render(struct fk_pipeline *pl, struct fk_profile *p)
{
	struct fk_writer *w;
	size_t opened;
	int rc = open_all(pl, &w, &opened);

	return render_all(pl, p, w, opened, rc);
}
