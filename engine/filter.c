/*
 * The filter chain.  Filters run in the order the job lists them.  A
 * per-frame callback is asked once per distinct frame and its answer cached
 * (rename, drop, colour), so its cost follows distinct frames, not samples.
 * A per-sample callback sees every sample in input order; a chain with one
 * forces single-threaded parsing and runs entirely at push time, frames
 * mapped through the caches on the way.  A chain of per-frame callbacks only
 * runs once, after all inputs are merged (fk_profile_apply_frame_filters).
 */
#include <string.h>

#include "edit.h"
#include "fk.h"

#define DROP UINT32_MAX

struct fk_frame_edit {
	struct fk_profile *p;
	fk_frame_t frame;
	char *rename;
	size_t rename_len;
	bool drop;
	bool renamed;
	const char *colour;
	char *colour_own;
};

struct fk_sample_edit {
	struct fk_profile *p;
	fk_frame_t **ids;
	size_t *n, *cap;
	double *w;
	const struct fk_logged_sample *meta;
	const char *comm;
	size_t comm_len;
	const struct fk_attr *attrs; /* as the input pushed them (1.3) */
	size_t nattrs;
	bool drop;
	int status;
};

int fk_filter_chain_add(struct fk_filter_chain *fc, const struct fk_plugin *pl,
                        void *opts, const char *where)
{
	struct fk_filter_inst *v, *fi;
	int rc;
	FK_CTX_CALL(cx);

	v = fk_realloc(fc->v, (fc->n + 1) * sizeof *v);
	if (!v)
		return fk_ctx_fail(cx, FK_ERR_NOMEM);
	fc->v = v;
	fi = &v[fc->n];
	memset(fi, 0, sizeof *fi);
	fi->plugin = pl;
	fi->opts = opts;
	fi->where = fk_strdup(where ? where : pl->d.h.name);
	if (!fi->where)
		return fk_ctx_fail(cx, FK_ERR_NOMEM);
	if ((rc = fk_call_create(fi)) < 0) {
		cx->instance = fi->where;
		fk_ctx_fail(cx, rc);
		fk_free(fi->where);
		return rc;
	}
	fi->uses = fk_call_uses(fi);
	fc->n++;
	if (fi->uses & FK_FILTER_USES_SAMPLE)
		fc->has_sample = true;
	if (fi->uses & FK_FILTER_USES_FRAME)
		fc->has_frame = true;
	return 0;
}

void fk_filter_chain_free(struct fk_filter_chain *fc)
{
	for (size_t i = 0; i < fc->n; i++) {
		struct fk_filter_inst *fi = &fc->v[i];
		fk_call_destroy(fi);
		fk_options_free(fi->plugin, fi->opts);
		fk_free(fi->where);
		fk_free(fi->cache);
	}
	fk_free(fc->v);
	memset(fc, 0, sizeof *fc);
}

static int intern_renamed(struct fk_profile *p, fk_frame_t old, const char *name, size_t len,
                          fk_frame_t *out)
{
	int annot = p->in.frames[old].annot;
	fk_frame_t id = fk_intern_annot(&p->in, name, len, annot);

	if (id == FK_FRAME_NONE)
		return FK_ERR_NOMEM;
	if (p->in.frames[id].module == FK_FRAME_NONE)
		p->in.frames[id].module = p->in.frames[old].module;
	if (p->in.frames[id].colour < 0 && p->in.frames[old].colour >= 0)
		p->in.frames[id].colour = p->in.frames[old].colour;
	*out = id;
	return 0;
}

int fk_filter_map_frame(struct fk_filter_chain *fc, size_t k, struct fk_profile *p,
                        fk_frame_t f, fk_frame_t *out)
{
	struct fk_filter_inst *fi = &fc->v[k];
	struct fk_frame_edit e;
	int rc;

	*out = f;
	if (!(fi->uses & FK_FILTER_USES_FRAME))
		return 0;
	if (fi->cache_owner != p) {
		fk_free(fi->cache);
		fi->cache = NULL;
		fi->cachecap = 0;
		fi->cache_owner = p;
	}
	if (f < fi->cachecap && fi->cache[f]) {
		*out = fi->cache[f] == DROP ? FK_FRAME_NONE : fi->cache[f] - 1;
		return 0;
	}
	if (f >= fi->cachecap) {
		size_t cap = fi->cachecap ? fi->cachecap : 1024;
		uint32_t *v;
		while (cap <= f)
			cap *= 2;
		v = fk_realloc(fi->cache, cap * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		memset(v + fi->cachecap, 0, (cap - fi->cachecap) * sizeof *v);
		fi->cache = v;
		fi->cachecap = cap;
	}
	memset(&e, 0, sizeof e);
	e.p = p;
	e.frame = f;
	if ((rc = fk_call_frame(fi, &e)) < 0)
		goto out;
	if (e.drop) {
		fi->cache[f] = DROP;
		*out = FK_FRAME_NONE;
		goto out;
	}
	if (e.renamed) {
		rc = intern_renamed(p, f, e.rename, e.rename_len, out);
		if (rc < 0)
			goto out;
	}
	if (e.colour) {
		rc = fk_intern_set_colour(&p->in, *out, e.colour);
		if (rc < 0)
			goto out;
	}
	fi->cache[f] = *out + 1;
out:
	fk_free(e.rename);
	fk_free(e.colour_own);
	return rc;
}

int fk_filter_samples(struct fk_filter_chain *fc, struct fk_profile *p,
                      fk_frame_t **ids, size_t *n, size_t *cap, double *w,
                      const struct fk_logged_sample *meta, const char *comm, size_t comm_len,
                      const struct fk_attr *attrs, size_t nattrs)
{
	for (size_t k = 0; k < fc->n; k++) {
		struct fk_filter_inst *fi = &fc->v[k];
		if (fi->uses & FK_FILTER_USES_FRAME) {
			size_t o = 0;
			for (size_t i = 0; i < *n; i++) {
				fk_frame_t m;
				int rc = fk_filter_map_frame(fc, k, p, (*ids)[i], &m);
				if (rc < 0)
					return rc;
				if (m != FK_FRAME_NONE)
					(*ids)[o++] = m;
			}
			*n = o;
		}
		if (fi->uses & FK_FILTER_USES_SAMPLE) {
			struct fk_sample_edit e = { p, ids, n, cap, w, meta, comm, comm_len,
			                            attrs, nattrs, false, 0 };
			int rc = fk_call_sample(fi, &e);

			if (rc < 0)
				return rc;
			if (e.status < 0)
				return e.status;
			if (e.drop)
				return 0;
		}
	}
	return 1;
}

/* ---- frame edit services (host table) --------------------------------- */

const char *fk_fe_name(const struct fk_frame_edit *e, size_t *len)
{
	const struct fk_frame_info *f = &e->p->in.frames[e->frame];
	if (e->renamed) {
		*len = e->rename_len;
		return e->rename;
	}
	*len = f->display_len;
	return f->name;
}

int fk_fe_annot(const struct fk_frame_edit *e) { return e->p->in.frames[e->frame].annot; }

const char *fk_fe_module(const struct fk_frame_edit *e, size_t *len)
{
	fk_frame_t m = e->p->in.frames[e->frame].module;
	if (m == FK_FRAME_NONE) {
		*len = 0;
		return NULL;
	}
	*len = e->p->in.frames[m].len;
	return e->p->in.frames[m].name;
}

int fk_fe_rename(struct fk_frame_edit *e, const char *name, size_t len)
{
	char *d = fk_strndup(name, len);
	if (!d)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < len; i++)
		if (d[i] == ';' || d[i] == '\n')
			d[i] = d[i] == ';' ? ':' : ' ';
	fk_free(e->rename);
	e->rename = d;
	e->rename_len = len;
	e->renamed = true;
	return 0;
}

void fk_fe_drop(struct fk_frame_edit *e) { e->drop = true; }

int fk_fe_colour(struct fk_frame_edit *e, const char *colour)
{
	char *d = fk_strdup(colour);
	if (!d)
		return FK_ERR_NOMEM;
	fk_free(e->colour_own);
	e->colour = e->colour_own = d;
	return 0;
}

/* ---- sample edit services ------------------------------------------------ */

size_t fk_se_depth(const struct fk_sample_edit *e) { return *e->n; }

const char *fk_se_frame_name(const struct fk_sample_edit *e, size_t i, size_t *len)
{
	const struct fk_frame_info *f;
	if (i >= *e->n) {
		*len = 0;
		return NULL;
	}
	f = &e->p->in.frames[(*e->ids)[i]];
	*len = f->display_len;
	return f->name;
}

int fk_se_frame_annot(const struct fk_sample_edit *e, size_t i)
{
	return i < *e->n ? e->p->in.frames[(*e->ids)[i]].annot : FK_ANNOT_NONE;
}

const char *fk_se_frame_module(const struct fk_sample_edit *e, size_t i, size_t *len)
{
	fk_frame_t m;
	*len = 0;
	if (i >= *e->n)
		return NULL;
	m = e->p->in.frames[(*e->ids)[i]].module;
	if (m == FK_FRAME_NONE)
		return NULL;
	*len = e->p->in.frames[m].len;
	return e->p->in.frames[m].name;
}

static char *clean_name(const char *name, size_t len)
{
	char *d = fk_strndup(name, len);
	if (d)
		for (size_t i = 0; i < len; i++)
			if (d[i] == ';' || d[i] == '\n')
				d[i] = d[i] == ';' ? ':' : ' ';
	return d;
}

int fk_se_rename(struct fk_sample_edit *e, size_t i, const char *name, size_t len)
{
	char *d;
	int rc;
	if (i >= *e->n)
		return FK_ERR_USAGE;
	if (!(d = clean_name(name, len)))
		return e->status = FK_ERR_NOMEM;
	rc = intern_renamed(e->p, (*e->ids)[i], d, len, &(*e->ids)[i]);
	fk_free(d);
	return rc < 0 ? (e->status = rc) : 0;
}

int fk_se_colour(struct fk_sample_edit *e, size_t i, const char *colour)
{
	int rc;
	if (i >= *e->n)
		return FK_ERR_USAGE;
	rc = fk_intern_set_colour(&e->p->in, (*e->ids)[i], colour);
	return rc < 0 ? (e->status = rc) : 0;
}

void fk_se_remove(struct fk_sample_edit *e, size_t i)
{
	if (i >= *e->n)
		return;
	memmove(*e->ids + i, *e->ids + i + 1, (*e->n - i - 1) * sizeof **e->ids);
	(*e->n)--;
}

void fk_se_remove_range(struct fk_sample_edit *e, size_t i, size_t n)
{
	if (i >= *e->n || n == 0)
		return;
	if (n > *e->n - i)
		n = *e->n - i;
	memmove(*e->ids + i, *e->ids + i + n, (*e->n - i - n) * sizeof **e->ids);
	*e->n -= n;
}

fk_frame_t fk_se_frame_id(const struct fk_sample_edit *e, size_t i)
{
	return i < *e->n ? (*e->ids)[i] : FK_FRAME_NONE;
}

void fk_se_truncate(struct fk_sample_edit *e, size_t n)
{
	if (n < *e->n)
		*e->n = n;
}

int fk_se_insert(struct fk_sample_edit *e, size_t i, const char *name, size_t len)
{
	fk_frame_t id;
	char *d;
	if (i > *e->n)
		return FK_ERR_USAGE;
	if (*e->n + 1 > *e->cap) {
		size_t cap = *e->cap * 2 + 16;
		fk_frame_t *v = fk_realloc(*e->ids, cap * sizeof *v);
		if (!v)
			return e->status = FK_ERR_NOMEM;
		*e->ids = v;
		*e->cap = cap;
	}
	if (!(d = clean_name(name, len)))
		return e->status = FK_ERR_NOMEM;
	id = fk_intern(&e->p->in, d, len);
	fk_free(d);
	if (id == FK_FRAME_NONE)
		return e->status = FK_ERR_NOMEM;
	memmove(*e->ids + i + 1, *e->ids + i, (*e->n - i) * sizeof **e->ids);
	(*e->ids)[i] = id;
	(*e->n)++;
	return 0;
}

double fk_se_weight(const struct fk_sample_edit *e)
{
	double t = 0;
	for (int k = 0; k < FK_SERIES_MAX; k++)
		t += e->w[k];
	return t;
}

void fk_se_set_weight(struct fk_sample_edit *e, double w)
{
	double t = fk_se_weight(e);
	/* w[k] / t first: w / t overflows to inf for a tiny t (1e-300), and
	 * 0 * inf would make the other series NaN */
	for (int k = 0; k < FK_SERIES_MAX; k++)
		e->w[k] = t != 0 ? e->w[k] / t * w : (k == 0 ? w : 0);
}

void fk_se_drop(struct fk_sample_edit *e) { e->drop = true; }

const struct fk_logged_sample *fk_se_meta(const struct fk_sample_edit *e) { return e->meta; }

const char *fk_se_comm(const struct fk_sample_edit *e, size_t *len)
{
	*len = e->comm_len;
	return e->comm;
}

const char *fk_se_attr(const struct fk_sample_edit *e, const char *key, size_t key_len, size_t *len)
{
	return fk_attrs_find(e->attrs, e->nattrs, key, key_len, len);
}

size_t fk_se_attrs(const struct fk_sample_edit *e, const struct fk_attr **attrs)
{
	*attrs = e->nattrs ? e->attrs : NULL;
	return e->nattrs;
}
