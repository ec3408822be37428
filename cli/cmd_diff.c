/*
 * flamekit diff: two profiles in, difffolded.pl's two-column folded stacks
 * out (`stack before after`), sorted as flamekit always writes.
 *
 * Each input is parsed into a profile of its own (any input format), then
 * both are copied into one profile, BEFORE's weights into series 0 and
 * AFTER's into series 1, renaming frames on the way for --strip-hex.  The
 * profile is marked as holding both series, so the folded output plugin
 * prints two columns even when one side is empty or all zeros, as
 * difffolded.pl does.
 */
#include <math.h>
#include <string.h>

#include "../engine/fk.h" /* engine internals: this file moves into the engine (issue 27) */
#include "cli.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* difffolded.pl -s: s/0x[0-9a-fA-F]+/0x.../g.  A match cannot span a ';',
 * so doing it frame by frame gives the same stacks as on whole lines. */
static const char *strip_hex(const char *s, size_t n, struct fk_buf *out, size_t *len)
{
	size_t i = 0;

	out->len = 0;
	while (i < n) {
		size_t j = i;
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			for (j = i + 2; j < n && is_hex(s[j]); j++)
				;
			if (fk_buf_append(out, "0x...", 5) < 0)
				return NULL;
			i = j;
			continue;
		}
		while (j < n && !(s[j] == '0' && j + 2 < n && s[j + 1] == 'x' && is_hex(s[j + 2])))
			j++;
		if (fk_buf_append(out, s + i, j - i) < 0)
			return NULL;
		i = j;
	}
	*len = out->len;
	return out->len ? out->data : "";
}

/* Add src's stacks to dst, their weights (series 0 of src) into `series`. */
static int add_side(struct fk_profile *dst, const struct fk_profile *src, int series,
                    bool strip, double *total)
{
	fk_frame_t *fmap = fk_malloc(((size_t)src->in.nframes + 1) * sizeof *fmap);
	fk_node_t *nmap = fk_malloc((size_t)src->tree.nnodes * sizeof *nmap);
	struct fk_buf b = { 0 };
	int rc = FK_ERR_NOMEM;

	if (!fmap || !nmap)
		goto out;
	for (uint32_t i = 0; i < src->in.nframes; i++) {
		const char *name = src->in.frames[i].name;
		size_t len = src->in.frames[i].len;
		if (strip && !(name = strip_hex(name, len, &b, &len)))
			goto out;
		fmap[i] = fk_intern(&dst->in, name, len);
		if (fmap[i] == FK_FRAME_NONE)
			goto out;
	}
	nmap[0] = FK_NODE_ROOT;
	for (uint32_t i = 1; i < src->tree.nnodes; i++) {
		const struct fk_node *n = &src->tree.nodes[i];
		nmap[i] = fk_tree_child(&dst->tree, nmap[n->parent], fmap[n->frame]);
		if (nmap[i] == FK_NODE_NONE)
			goto out;
	}
	for (uint32_t i = 1; i < src->tree.nnodes; i++) {
		double w[FK_SERIES_MAX] = { 0 };
		if (!fk_node_leaf(&src->tree, i))
			continue;
		w[series] = fk_node_self(&src->tree, i, 0);
		*total += w[series];
		if (fk_tree_add(&dst->tree, nmap[i], w) < 0)
			goto out;
	}
	rc = 0;
out:
	fk_buf_free(&b);
	fk_free(fmap);
	fk_free(nmap);
	return rc;
}

int cmd_diff(struct cli *c, int argc, char **argv)
{
	const char *format, *outpath, *files[2];
	bool format_default, normalize, strip;
	const struct fk_plugin *in_pl = NULL, *out_pl;
	struct fk_profile *side[2] = { NULL, NULL }, *p = NULL;
	double total[2] = { 0, 0 };
	struct cli_args a;
	struct fk_filter_chain fc;
	size_t nfiles;
	int rc = EXIT_USAGE, r, demangle = FK_DMG_PLUGIN;

	r = cli_parse(c, "diff", argc, argv, NULL, NULL, NULL, &a);
	if (r == 0 && a.given[OPT_DEMANGLE])
		r = cli_demangle_opt("diff", a.v[OPT_DEMANGLE], &demangle);
	format = a.v[OPT_FORMAT];
	format_default = !a.given[OPT_FORMAT];
	outpath = a.v[OPT_OUTPUT];
	normalize = a.given[OPT_NORMALIZE];
	strip = a.given[OPT_STRIP_HEX];
	nfiles = a.nfiles;
	for (size_t k = 0; k < 2 && k < nfiles; k++)
		files[k] = a.files[k];
	if (r < 0) {
		rc = cli_exit(r);
		goto out;
	}
	if (nfiles > 2) {
		rc = cli_usage_error("diff", "takes two files, BEFORE and AFTER");
		goto out;
	}
	if (nfiles != 2) {
		rc = cli_usage_error("diff", "needs two files, BEFORE and AFTER");
		goto out;
	}
	if (c->shard_n > 1) {
		rc = cli_usage_error("diff", "--shard does not apply to diff");
		goto out;
	}
	rc = EXIT_DATA;
	if (cli_load(c) < 0)
		goto out;
	if (strcmp(format, "auto") != 0 && !(in_pl = cli_find(c, FK_PLUGIN_INPUT, format, "diff"))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (!(out_pl = cli_find(c, FK_PLUGIN_OUTPUT, "folded", "diff"))) {
		rc = EXIT_DATA;
		goto out;
	}
	if ((r = fk_output_not_input(outpath, files, 2)) < 0) {
		rc = cli_exit(r);
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		struct fk_input_spec spec;
		memset(&spec, 0, sizeof spec);
		spec.path = files[k];
		spec.plugin = in_pl;
		spec.magic_wins = format_default; /* diff a.data b.data needs no --format */
		spec.demangle = demangle;
		if (!(side[k] = fk_profile_new()))
			goto nomem;
		/* each side narrowed on its own (--from counts from its first sample) */
		memset(&fc, 0, sizeof fc);
		if ((r = cli_narrow_add(c, "diff", &a, &fc)) != 0) {
			rc = r;
			goto out;
		}
		r = fk_parse_input(&c->reg, &spec, side[k], &fc, cli_threads(c), c->progress);
		fk_filter_chain_free(&fc);
		if (r < 0) {
			rc = cli_exit(r);
		goto out;
	}
		if (side[k]->series_mask & 2) {
			fk_log(FK_LOG_ERROR, "%s: has two-column (differential) lines; diff compares "
			       "two ordinary profiles", files[k]);
		goto out;
	}
	}
	if (!(p = fk_profile_new()))
		goto nomem;
	for (int k = 0; k < 2; k++) {
		if (add_side(p, side[k], k, strip, &total[k]) < 0)
			goto nomem;
		fk_profile_free(side[k]);
		side[k] = NULL;
	}
	/* difffolded.pl -n: int(before * total_after / total_before) when the
	 * totals differ.  With no BEFORE samples at all there is nothing to
	 * scale (difffolded.pl dies dividing by zero). */
	if (normalize && total[0] != total[1] && total[0] != 0) {
		for (uint32_t i2 = 1; i2 < p->tree.nnodes; i2++) {
			double *w = fk_node_selfv(&p->tree, i2);
			if (w)
				w[0] = trunc(w[0] * total[1] / total[0]);
		}
	}
	p->series_mask = 3;
	{
		struct fk_output_spec out;
		struct fk_pipeline pl;
		memset(&out, 0, sizeof out);
		out.plugin = out_pl;
		out.path = outpath;
		memset(&pl, 0, sizeof pl);
		pl.reg = &c->reg;
		pl.outputs = &out;
		pl.noutputs = 1;
		rc = cli_exit(fk_pipeline_render(&pl, p));
	}
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
	rc = EXIT_DATA;
out:
	cli_args_free(&a);
	fk_profile_free(side[0]);
	fk_profile_free(side[1]);
	fk_profile_free(p);
	return rc;
}
