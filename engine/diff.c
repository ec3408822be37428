/*
 * Differential profiles (difffolded.pl): two profiles in, one out whose
 * series 0 holds BEFORE's weights and series 1 AFTER's.
 *
 * Each input is parsed into a profile of its own (any input format, each
 * with its own filters), then both are copied into one profile, BEFORE's
 * weights into series 0 and AFTER's into series 1; for strip_hex, the
 * strip-hex filter plugin runs on each side's profile first (stripping
 * changes no total, so -n scales as difffolded.pl -s -n does).  The profile is marked as holding both series, so the
 * folded output plugin prints two columns even when one side is empty or
 * all zeros, as difffolded.pl does.
 */
#include <math.h>
#include <string.h>

#include "fk.h"

/* Add src's stacks to dst, their weights (series 0 of src) into `series`. */
static int add_side(struct fk_profile *dst, const struct fk_profile *src, int series,
                    double *total)
{
	struct fk_profile_map m;
	int rc = FK_ERR_NOMEM;

	if (fk_profile_map(dst, src, &m) < 0)
		goto out;
	for (uint32_t i = 1; i < src->tree.nnodes; i++) {
		double w[FK_SERIES_MAX] = { 0 };
		if (!fk_node_leaf(&src->tree, i))
			continue;
		w[series] = fk_node_self(&src->tree, i, 0);
		*total += w[series];
		if (fk_tree_add(&dst->tree, m.nodes[i], w) < 0)
			goto out;
	}
	rc = 0;
out:
	fk_profile_map_free(&m);
	return rc;
}

/* Parse both sides into side[0..2), each side's inputs summed (series 0). */
static int read_sides(struct fk_diff *d, struct fk_profile **side)
{
	for (int k = 0; k < 2; k++) {
		if (!(side[k] = fk_profile_new())) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return FK_ERR_NOMEM;
		}
		for (size_t i = 0; i < d->nsides[k]; i++) {
			struct fk_input_spec spec = d->sides[k][i];
			int r;
			spec.series = 0;
			r = fk_parse_input(d->reg, &spec, side[k], &d->filters[k], d->threads,
			                   d->progress);
			if (r < 0)
				return r;
			if (side[k]->series_mask & 2) {
				fk_log(FK_LOG_ERROR, "%s: has two-column (differential) lines; diff "
				       "compares two ordinary profiles", spec.path);
				return FK_ERR_DATA;
			}
		}
	}
	return 0;
}

/* difffolded.pl -s: the strip-hex filter (plugins/filter/strip-hex), its
 * plugin sh, on each side's profile before the two are compared, so that
 * stacks differing only by addresses are summed (on each side, the
 * smaller tree is the one copied). */
static int strip_hex(const struct fk_plugin *sh, struct fk_profile **side)
{
	struct fk_filter_chain fc = { 0 };
	void *opts;
	int rc;
	FK_CTX_CALL(cx);

	if (fk_options_new(sh, &opts) < 0)
		return fk_ctx_fail(cx, FK_ERR_NOMEM);
	/* the chain owns opts once added; not when adding failed (reported),
	 * though it may hold the room it grew for them */
	if ((rc = fk_filter_chain_add(&fc, sh, opts, NULL)) < 0) {
		fk_options_free(sh, opts);
		fk_filter_chain_free(&fc);
		return rc;
	}
	for (int k = 0; k < 2 && rc == 0; k++)
		rc = fk_ctx_fail(cx, fk_profile_apply_frame_filters(&side[k], &fc));
	fk_filter_chain_free(&fc);
	return rc;
}

/* No output may replace an input of either side. */
static int outputs_not_inputs(const struct fk_diff *d)
{
	for (size_t o = 0; o < d->noutputs; o++)
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < d->nsides[k]; i++) {
				int rc = fk_output_not_input(d->outputs[o].path, &d->sides[k][i].path, 1);
				if (rc < 0)
					return rc;
			}
	return 0;
}

int fk_diff_run(struct fk_diff *d)
{
	struct fk_profile *side[2] = { NULL, NULL }, *p = NULL;
	const struct fk_plugin *sh = NULL;
	double total[2] = { 0, 0 };
	struct fk_pipeline pl;
	int rc;

	if (d->strip_hex && !(sh = fk_registry_find(d->reg, FK_PLUGIN_FILTER, "strip-hex"))) {
		fk_log(FK_LOG_ERROR, "cannot strip hex: the strip-hex filter plugin is not loaded "
		       "(see flamekit plugins)");
		return FK_ERR_USAGE;
	}
	if ((rc = outputs_not_inputs(d)) < 0 ||
	    (rc = read_sides(d, side)) < 0 ||
	    (sh && (rc = strip_hex(sh, side)) < 0))
		goto out;
	rc = FK_ERR_NOMEM;
	if (!(p = fk_profile_new()))
		goto nomem;
	for (int k = 0; k < 2; k++) {
		if (add_side(p, side[k], k, &total[k]) < 0)
			goto nomem;
		fk_profile_free(side[k]);
		side[k] = NULL;
	}
	/* difffolded.pl -n: int(before * total_after / total_before) when the
	 * totals differ.  With no BEFORE samples at all there is nothing to
	 * scale (difffolded.pl dies dividing by zero). */
	if (d->normalize && total[0] != total[1] && total[0] != 0) {
		for (uint32_t i = 1; i < p->tree.nnodes; i++) {
			double *w = fk_node_selfv(&p->tree, i);
			if (w)
				w[0] = trunc(w[0] * total[1] / total[0]);
		}
	}
	p->series_mask = 3;
	memset(&pl, 0, sizeof pl);
	pl.reg = d->reg;
	pl.outputs = d->outputs;
	pl.noutputs = d->noutputs;
	rc = fk_pipeline_render(&pl, p);
	goto out;
nomem:
	fk_log(FK_LOG_ERROR, "out of memory");
out:
	fk_profile_free(side[0]);
	fk_profile_free(side[1]);
	fk_profile_free(p);
	return rc;
}
