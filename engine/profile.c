/*
 * A profile is what inputs fill and outputs read: the interned frames, the
 * merged stack tree and, when an output asked for it, the sample log.
 * Sinks are the write side: one per parsing thread, each with a profile of
 * its own, merged into the parent in a fixed order so the result does not
 * depend on the thread count.
 */
#include <inttypes.h>
#include <string.h>

#include "fk.h"
#include "vector/fkvector.h"
/* the inputs' limit on a sample's time (header-only: the engine and every
 * input plugin share one definition) */
#include "../plugins/input/common/time.h"

struct fk_profile *fk_profile_new(void)
{
	struct fk_profile *p = fk_calloc(1, sizeof *p);

	if (!p)
		return NULL;
	if (fk_intern_init(&p->in) < 0 || fk_tree_init(&p->tree) < 0) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

void fk_profile_free(struct fk_profile *p)
{
	if (!p)
		return;
	fk_intern_free(&p->in);
	fk_tree_free(&p->tree);
	fk_free(p->log.v);
	fk_free(p->log.x);
	fk_attrtab_free(&p->attrs);
	for (int s = 0; s < FK_SERIES_MAX; s++)
		fk_free(p->unit[s]);
	fk_free(p->declared);
	fk_free(p);
}

static int log_append(struct fk_profile *p, const struct fk_logged_sample *ls,
                      struct fk_logged_extra x)
{
	if (p->log.n == p->log.cap) {
		size_t cap = p->log.cap ? p->log.cap * 2 : 4096;
		struct fk_logged_sample *v = fk_realloc(p->log.v, cap * sizeof *v);
		struct fk_logged_extra *e;
		if (!v)
			return FK_ERR_NOMEM;
		p->log.v = v;
		if (!(e = fk_realloc(p->log.x, cap * sizeof *e)))
			return FK_ERR_NOMEM;
		p->log.x = e;
		p->log.cap = cap;
	}
	p->log.x[p->log.n] = x;
	p->log.v[p->log.n++] = *ls;
	return 0;
}

/* src's attribute list or thread name in dst's table. */
static int merge_extra(struct fk_profile *dst, const struct fk_profile *src,
                       struct fk_logged_extra *x)
{
	const struct fk_attr *a;
	size_t n = fk_attrs_get(&src->attrs, x->attrs, &a), len;
	const char *c;

	if (n && (x->attrs = fk_attrs_intern(&dst->attrs, a, n)) == FK_ATTRS_NONE)
		return FK_ERR_NOMEM;
	if (x->comm != FK_FRAME_NONE) {
		c = fk_attrs_string_text(&src->attrs, x->comm, &len);
		if ((x->comm = fk_attrs_string(&dst->attrs, c, len)) == FK_FRAME_NONE)
			return FK_ERR_NOMEM;
	}
	return 0;
}

/* A frame name seen in several modules keeps the smallest (bytes, then
 * length): the same answer whatever order samples, chunks and forked sinks
 * arrive in, so outputs do not depend on the thread count. */
static int module_cmp(const struct fk_intern *in, fk_frame_t have, const char *m, size_t n)
{
	const struct fk_frame_info *f = &in->frames[have];
	size_t k = f->len < n ? f->len : n;
	int c = memcmp(f->name, m, k);
	return c ? c : (f->len > n) - (f->len < n);
}

static bool module_wins(const struct fk_intern *in, fk_frame_t cand, fk_frame_t have)
{
	if (have == FK_FRAME_NONE)
		return true;
	return module_cmp(in, have, in->frames[cand].name, in->frames[cand].len) > 0;
}

int fk_profile_map(struct fk_profile *dst, const struct fk_profile *src,
                   struct fk_profile_map *map)
{
	fk_frame_t *fmap = fk_malloc(((size_t)src->in.nframes + 1) * sizeof *fmap);
	fk_node_t *nmap = fk_malloc((size_t)src->tree.nnodes * sizeof *nmap);

	map->frames = fmap;
	map->nodes = nmap;
	if (!fmap || !nmap)
		return FK_ERR_NOMEM;
	for (uint32_t i = 0; i < src->in.nframes; i++) {
		const struct fk_frame_info *f = &src->in.frames[i];
		fmap[i] = fk_intern(&dst->in, f->name, f->len);
		if (fmap[i] == FK_FRAME_NONE)
			return FK_ERR_NOMEM;
	}
	nmap[0] = FK_NODE_ROOT;
	for (uint32_t i = 1; i < src->tree.nnodes;) {
		/* A chain (each node the child of the one before, as a stack's new
		 * part is inserted) goes in as one path: its new part is batched. */
		const struct fk_node *sn = src->tree.nodes;
		fk_frame_t f[64];
		uint32_t m = 0;
		do
			f[m] = fmap[sn[i + m].frame];
		while (++m < 64 && i + m < src->tree.nnodes && sn[i + m].parent == i + m - 1);
		if (fk_tree_insert_at(&dst->tree, nmap[sn[i].parent], f, m, nmap + i) == FK_NODE_NONE)
			return FK_ERR_NOMEM;
		i += m;
	}
	return 0;
}

void fk_profile_map_free(struct fk_profile_map *map)
{
	fk_free(map->frames);
	fk_free(map->nodes);
}

int fk_profile_merge(struct fk_profile *dst, const struct fk_profile *src)
{
	struct fk_profile_map m;
	const fk_frame_t *fmap;
	const fk_node_t *nmap;
	uint32_t i;
	int rc = FK_ERR_NOMEM;

	if (fk_profile_map(dst, src, &m) < 0)
		goto out;
	fmap = m.frames;
	nmap = m.nodes;
	for (i = 0; i < src->in.nframes; i++) {
		const struct fk_frame_info *f = &src->in.frames[i];
		struct fk_frame_info *d = &dst->in.frames[fmap[i]];
		if (f->module != FK_FRAME_NONE && module_wins(&dst->in, fmap[f->module], d->module))
			d->module = fmap[f->module];
		if (f->colour >= 0 && d->colour < 0 &&
		    fk_intern_set_colour(&dst->in, fmap[i], src->in.colours[f->colour]) < 0)
			goto out;
	}
	for (i = 0; i < src->tree.nnodes; i++)
		if (fk_node_leaf(&src->tree, i) &&
		    fk_tree_add(&dst->tree, nmap[i], src->tree.w[src->tree.nodes[i].wi]) < 0)
			goto out;
	for (size_t k = 0; k < src->log.n; k++) {
		struct fk_logged_sample ls = src->log.v[k];
		struct fk_logged_extra x = src->log.x[k];
		ls.leaf = nmap[ls.leaf];
		if (merge_extra(dst, src, &x) < 0 || log_append(dst, &ls, x) < 0)
			goto out;
	}
	dst->series_mask |= src->series_mask;
	dst->samples_pushed += src->samples_pushed;
	if (src->has_start)
		fk_profile_set_start(dst, src->start_ns);
	for (int s = 0; s < FK_SERIES_MAX; s++)
		if (!dst->unit[s] && src->unit[s] && !(dst->unit[s] = fk_strdup(src->unit[s])))
			goto out;
	rc = 0;
out:
	fk_profile_map_free(&m);
	return rc;
}

void fk_profile_set_start(struct fk_profile *p, int64_t unix_ns)
{
	if (!p->has_start || unix_ns < p->start_ns)
		p->start_ns = unix_ns;
	p->has_start = true;
}

bool fk_profile_empty(const struct fk_profile *p)
{
	return p->in.nframes == 0 && p->tree.nnodes == 1 && p->tree.nw == 0 && p->log.n == 0 &&
	       p->samples_pushed == 0;
}

int fk_profile_absorb(struct fk_profile *dst, struct fk_profile *src)
{
	if (!fk_profile_empty(dst)) {
		/* src only gives its nodes now: its edge table can go first */
		fk_free(src->tree.slots);
		src->tree.slots = NULL;
		return fk_profile_merge(dst, src);
	}
	/* Take src's frames, tree and log as they are: the first forked sink
	 * joined costs nothing, instead of a second insertion of every node. */
	struct fk_intern in = dst->in;
	struct fk_tree tree = dst->tree;
	struct fk_samplelog log = dst->log;
	struct fk_attrtab attrs = dst->attrs;

	dst->in = src->in;
	dst->tree = src->tree;
	dst->log = src->log;
	dst->attrs = src->attrs;
	src->in = in;
	src->tree = tree;
	src->log = log;
	src->attrs = attrs;
	dst->series_mask |= src->series_mask;
	dst->samples_pushed += src->samples_pushed;
	src->samples_pushed = 0;
	if (src->has_start)
		fk_profile_set_start(dst, src->start_ns);
	for (int s = 0; s < FK_SERIES_MAX; s++)
		if (!dst->unit[s] && src->unit[s]) {
			dst->unit[s] = src->unit[s];
			src->unit[s] = NULL;
		}
	return 0;
}

/* Rebuild p's tree through a frame map (FK_FRAME_NONE = drop the frame). */
static int remap_tree(struct fk_profile *p, const fk_frame_t *fmap)
{
	struct fk_tree nt;
	fk_node_t *nmap;
	uint32_t i;

	nmap = fk_malloc((size_t)p->tree.nnodes * sizeof *nmap);
	if (!nmap || fk_tree_init(&nt) < 0) {
		fk_free(nmap);
		return FK_ERR_NOMEM;
	}
	/* The new tree has at most as many nodes as the old one: size it so
	 * that it never grows (each growth rehashes every node). */
	if (p->tree.mask > nt.mask) {
		uint64_t *slots = fk_calloc((size_t)p->tree.mask + 1, sizeof *slots);
		struct fk_node *nodes = fk_realloc(nt.nodes, (size_t)p->tree.capnodes * sizeof *nodes);
		if (nodes) {
			nt.nodes = nodes;
			nt.capnodes = p->tree.capnodes;
		}
		if (slots) {
			fk_free(nt.slots);
			nt.slots = slots;
			nt.mask = p->tree.mask;
		}
	}
	nmap[0] = FK_NODE_ROOT;
	for (i = 1; i < p->tree.nnodes; i++) {
		const struct fk_node *n = &p->tree.nodes[i];
		fk_frame_t f = fmap[n->frame];
		nmap[i] = f == FK_FRAME_NONE ? nmap[n->parent] : fk_tree_child(&nt, nmap[n->parent], f);
		if (nmap[i] == FK_NODE_NONE) {
			fk_free(nmap);
			fk_tree_free(&nt);
			return FK_ERR_NOMEM;
		}
	}
	for (i = 0; i < p->tree.nnodes; i++)
		if (fk_node_leaf(&p->tree, i) &&
		    fk_tree_add(&nt, nmap[i], p->tree.w[p->tree.nodes[i].wi]) < 0) {
			fk_free(nmap);
			fk_tree_free(&nt);
			return FK_ERR_NOMEM;
		}
	for (size_t k = 0; k < p->log.n; k++)
		p->log.v[k].leaf = nmap[p->log.v[k].leaf];
	fk_free(nmap);
	fk_tree_free(&p->tree);
	p->tree = nt;
	return 0;
}

int fk_profile_apply_frame_filters(struct fk_profile **pp, struct fk_filter_chain *fc)
{
	struct fk_profile *p = *pp;
	uint32_t n = p->in.nframes, i;
	fk_frame_t *fmap;
	unsigned char *used;
	int rc;

	if (!fc || !fc->has_frame || fc->has_sample)
		return 0; /* with sample filters, frames were mapped at push time */
	fmap = fk_malloc(((size_t)n + 1) * sizeof *fmap);
	used = fk_calloc((size_t)n + 1, 1);
	if (!fmap || !used) {
		fk_free(fmap);
		fk_free(used);
		return FK_ERR_NOMEM;
	}
	/* Only frames on some stack: module names are interned beside them
	 * and are no business of a per-frame filter. */
	for (i = 1; i < p->tree.nnodes; i++)
		used[p->tree.nodes[i].frame] = 1;
	for (i = 0; i < n; i++) {
		fmap[i] = i;
		for (size_t k = 0; k < fc->n && used[i] && fmap[i] != FK_FRAME_NONE; k++) {
			rc = fk_filter_map_frame(fc, k, p, fmap[i], &fmap[i]);
			if (rc < 0) {
				fk_free(fmap);
				fk_free(used);
				return rc;
			}
		}
	}
	for (i = 0; i < n && fmap[i] == i; i++)
		;
	/* a filter that only coloured frames leaves the tree as it is */
	rc = i < n ? remap_tree(p, fmap) : 0;
	fk_free(fmap);
	fk_free(used);
	return rc;
}

struct fk_profile *fk_profile_reversed(const struct fk_profile *p)
{
	struct fk_profile *r = fk_profile_new();
	fk_frame_t *path = NULL;
	size_t cap = 0, len;
	fk_node_t *leafmap = NULL;

	if (!r)
		return NULL;
	if (fk_profile_merge(r, p) < 0) /* same frames, same ids order */
		goto fail;
	fk_tree_free(&r->tree);
	if (fk_tree_init(&r->tree) < 0)
		goto fail;
	leafmap = fk_malloc((size_t)p->tree.nnodes * sizeof *leafmap);
	if (!leafmap)
		goto fail;
	for (uint32_t i = 0; i < p->tree.nnodes; i++) {
		fk_node_t n = FK_NODE_ROOT;
		leafmap[i] = FK_NODE_ROOT;
		if (!fk_node_leaf(&p->tree, i))
			continue;
		if (fk_tree_path(&p->tree, i, &path, &cap, &len) < 0)
			goto fail;
		for (size_t k = len; k-- > 0;) {
			/* frame ids are the same in r: merge interned in order */
			n = fk_tree_child(&r->tree, n, path[k]);
			if (n == FK_NODE_NONE)
				goto fail;
		}
		if (fk_tree_add(&r->tree, n, p->tree.w[p->tree.nodes[i].wi]) < 0)
			goto fail;
		leafmap[i] = n;
	}
	for (size_t k = 0; k < r->log.n; k++)
		r->log.v[k].leaf = leafmap[p->log.v[k].leaf];
	fk_free(path);
	fk_free(leafmap);
	return r;
fail:
	fk_free(path);
	fk_free(leafmap);
	fk_profile_free(r);
	return NULL;
}

int fk_profile_finish(struct fk_profile *p)
{
	return fk_tree_finish(&p->tree, &p->in);
}

/* ---- sinks ------------------------------------------------------------- */

int fk_sink_init(struct fk_sink *s, struct fk_profile *p, int series, unsigned threads,
                 struct fk_filter_chain *filters)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	s->series = series;
	s->filters = filters && filters->has_sample ? filters : NULL;
	s->threads = s->filters ? 1 : (threads ? threads : 1);
	return 0;
}

void fk_sink_fini(struct fk_sink *s)
{
	fk_free(s->ids);
	fk_free(s->hashes);
	s->ids = NULL;
	s->hashes = NULL;
	s->idcap = s->hashcap = 0;
}

struct fk_sink *fk_sink_fork(struct fk_sink *s)
{
	struct fk_sink *c = fk_calloc(1, sizeof *c);
	struct fk_profile *p = fk_profile_new();

	if (!c || !p) {
		fk_free(c);
		fk_profile_free(p);
		return NULL;
	}
	p->keep_samples = s->p->keep_samples;
	fk_sink_init(c, p, s->series, 1, NULL);
	c->parent = s;
	c->reg = s->reg;
	c->name = s->name;
	return c;
}

int fk_sink_join(struct fk_sink *parent, struct fk_sink *child)
{
	int rc = 0;

	if (!child)
		return 0;
	if (parent)
		rc = fk_profile_absorb(parent->p, child->p);
	fk_profile_free(child->p);
	fk_sink_fini(child);
	fk_free(child);
	return rc;
}

/* Room for n frames in ids and in hashes.  Each has its own capacity: a
 * filter inserting frames (fk_se_insert) and fk_tree_path grow ids alone. */
static int grow_ids(struct fk_sink *s, size_t n)
{
	if (fk_vector_grow((void **)&s->ids, &s->idcap, n, sizeof *s->ids, fk_realloc) < 0 ||
	    fk_vector_grow((void **)&s->hashes, &s->hashcap, n, sizeof *s->hashes, fk_realloc) < 0)
		return FK_ERR_NOMEM;
	return 0;
}

static void sample_weights(const struct fk_sink *s, const struct fk_sample *smp, double *w)
{
	for (int k = 0; k < FK_SERIES_MAX; k++)
		w[k] = 0;
	if (smp->flags & FK_SAMPLE_SERIES) {
		for (int k = 0; k < FK_SERIES_MAX; k++)
			w[k] = smp->weight[k];
	} else {
		w[s->series] = smp->weight[0];
	}
}

/* Filters, tree insertion and the log: shared by push and push_node. */
/* The attributes a push_ext caller gave (none for push and push_node). */
struct push_attrs {
	const struct fk_attr *v;
	size_t n;
};

/* What the log keeps of a sample's attributes and thread name: interned. */
static int log_extra(struct fk_profile *p, const struct fk_sample *smp,
                     const struct push_attrs *pa, struct fk_logged_extra *x)
{
	x->attrs = 0;
	x->comm = FK_FRAME_NONE;
	if (pa->n && (x->attrs = fk_attrs_intern(&p->attrs, pa->v, pa->n)) == FK_ATTRS_NONE)
		return FK_ERR_NOMEM;
	if ((smp->flags & FK_SAMPLE_COMM) && smp->comm &&
	    (x->comm = fk_attrs_string(&p->attrs, smp->comm, smp->comm_len)) == FK_FRAME_NONE)
		return FK_ERR_NOMEM;
	return 0;
}

static int finish_push(struct fk_sink *s, size_t n, double *w, const struct fk_sample *smp,
                       const struct push_attrs *pa, fk_node_t known, fk_node_t *out)
{
	struct fk_profile *p = s->p;
	struct fk_logged_sample ls;
	struct fk_logged_extra x;
	fk_node_t node = known;

	/* the sample as filters and the log see it: only built for them (a
	 * repeated stack is most of a parse, and needs neither) */
	if (s->filters || p->keep_samples) {
		memset(&ls, 0, sizeof ls);
		ls.flags = smp->flags & (FK_SAMPLE_TIME | FK_SAMPLE_PID | FK_SAMPLE_TID);
		ls.time_ns = smp->time_ns;
		ls.pid = (smp->flags & FK_SAMPLE_PID) ? smp->pid : -1;
		ls.tid = (smp->flags & FK_SAMPLE_TID) ? smp->tid : -1;
	}
	if (s->filters) {
		const char *comm = (smp->flags & FK_SAMPLE_COMM) ? smp->comm : NULL;
		size_t comm_len = (smp->flags & FK_SAMPLE_COMM) ? smp->comm_len : 0;
		int keep = 1;
		memcpy(ls.weight, w, sizeof ls.weight);
		/* the input's own steps first: the filters see demangled names */
		if (s->pre)
			keep = fk_filter_samples(s->pre, p, &s->ids, &n, &s->idcap, w, &ls, comm, comm_len,
			                         pa->v, pa->n);
		if (keep > 0)
			keep = fk_filter_samples(s->filters, p, &s->ids, &n, &s->idcap, w, &ls, comm,
			                         comm_len, pa->v, pa->n);
		if (keep < 0)
			return keep;
		if (keep == 0) {
			if (out)
				*out = FK_NODE_NONE;
			return 0;
		}
		node = FK_NODE_NONE;
	}
	if (node == FK_NODE_NONE) {
		node = fk_tree_insert(&p->tree, s->ids, n);
		if (node == FK_NODE_NONE)
			return FK_ERR_NOMEM;
	}
	if (fk_tree_add(&p->tree, node, w) < 0)
		return FK_ERR_NOMEM;
	/* A series holds data when a weight landed in it, or when the input gave
	 * every series explicitly (a differential line "a;b 0 5" keeps both
	 * columns even if one is all zeros, so folded output stays two-column). */
	for (int k = 0; k < FK_SERIES_MAX; k++)
		if (w[k] != 0 || (smp->flags & FK_SAMPLE_SERIES))
			p->series_mask |= 1u << k;
	p->samples_pushed++;
	if (p->keep_samples) {
		ls.leaf = node;
		memcpy(ls.weight, w, sizeof ls.weight);
		if (log_extra(p, smp, pa, &x) < 0 || log_append(p, &ls, x) < 0)
			return FK_ERR_NOMEM;
	}
	if (out)
		*out = s->filters ? FK_NODE_NONE : node;
	return 0;
}

/* A name as it can be interned directly: no annotation to append and no
 * byte that folded text cannot carry. */
static inline bool plain_name(const struct fk_frameref *fr)
{
	return fr->annot == 0 && (fr->len == 0 || (!memchr(fr->name, ';', fr->len) &&
	                                           !memchr(fr->name, '\n', fr->len)));
}

/* Intern one frame of a sample: ';' and '\n' replaced, annotation and
 * module added. */
static fk_frame_t intern_frame(struct fk_profile *p, const struct fk_frameref *fr, bool plain,
                               uint32_t h)
{
	fk_frame_t id;

	if (plain) {
		id = fk_intern_hashed(&p->in, fr->name, fr->len, h);
	} else if (fr->len && (memchr(fr->name, ';', fr->len) || memchr(fr->name, '\n', fr->len))) {
		/* ';' separates frames and '\n' lines in folded text: a name
		 * holding one would not survive a round trip. */
		char *c = fk_strndup(fr->name, fr->len);
		if (!c)
			return FK_FRAME_NONE;
		for (size_t k = 0; k < fr->len; k++)
			if (c[k] == ';' || c[k] == '\n')
				c[k] = c[k] == ';' ? ':' : ' ';
		id = fk_intern_annot(&p->in, c, fr->len, fr->annot);
		fk_free(c);
	} else {
		id = fk_intern_annot(&p->in, fr->name, fr->len, fr->annot);
	}
	if (id == FK_FRAME_NONE)
		return id;
	/* a name met in several modules keeps the smallest (see module_cmp) */
	if (fr->module && (p->in.frames[id].module == FK_FRAME_NONE ||
	                   module_cmp(&p->in, p->in.frames[id].module, fr->module, fr->module_len) > 0)) {
		fk_frame_t m = fk_intern(&p->in, fr->module, fr->module_len);
		if (m == FK_FRAME_NONE)
			return m;
		p->in.frames[id].module = m;
	}
	return id;
}

static int push_frames(struct fk_sink *s, const struct fk_sample *smp,
                       const struct push_attrs *pa, fk_node_t *out)
{
	struct fk_profile *p = s->p;
	double w[FK_SERIES_MAX];
	size_t i, n = smp->nframes;

	if (grow_ids(s, n + 1) < 0)
		return FK_ERR_NOMEM;
	/* Plain names are hashed first and their table slots, frames and
	 * names fetched a stage at a time, so a stack's cache misses overlap;
	 * hashes[i] = 0 with ids[i] = FK_FRAME_NONE marks a name that is not
	 * plain. */
	for (i = 0; i < n; i++) {
		const struct fk_frameref *fr = &smp->frames[i];
		s->ids[i] = plain_name(fr) ? 0 : FK_FRAME_NONE;
		if (s->ids[i] == 0) {
			s->hashes[i] = fk_intern_hash(fr->name, fr->len);
			fk_intern_prefetch(&p->in, s->hashes[i], 0);
		}
	}
	for (int stage = 1; stage <= 2; stage++)
		for (i = 0; i < n; i++)
			if (s->ids[i] == 0)
				fk_intern_prefetch(&p->in, s->hashes[i], stage);
	for (i = 0; i < n; i++) {
		bool plain = s->ids[i] == 0;
		s->ids[i] = intern_frame(p, &smp->frames[i], plain, plain ? s->hashes[i] : 0);
		if (s->ids[i] == FK_FRAME_NONE)
			return FK_ERR_NOMEM;
	}
	sample_weights(s, smp, w);
	return finish_push(s, n, w, smp, pa, FK_NODE_NONE, out);
}

static int push_known(struct fk_sink *s, fk_node_t node, const struct fk_sample *smp,
                      const struct push_attrs *pa)
{
	double w[FK_SERIES_MAX];
	size_t n = 0;

	if (node >= s->p->tree.nnodes)
		return FK_ERR_INTERNAL;
	sample_weights(s, smp, w);
	if (s->filters) {
		if (grow_ids(s, s->p->tree.nodes[node].depth + 1) < 0 ||
		    fk_tree_path(&s->p->tree, node, &s->ids, &s->idcap, &n) < 0)
			return FK_ERR_NOMEM;
		return finish_push(s, n, w, smp, pa, FK_NODE_NONE, NULL);
	}
	return finish_push(s, 0, w, smp, pa, node, NULL);
}

/*
 * Every input's sample times are held to the limit v8 and pprof apply when
 * reading theirs (common/time.h): the outputs that subtract two times
 * (flame charts, the html timeline, pprof's duration) need the difference
 * to fit an int64, and a third-party plugin may push anything.  Checked
 * here, on every push, so no input, filter or output meets such a time;
 * reported once per input (the root sink's flag: forks on other threads
 * share it), without the plugin's prefix, as the input's own data errors.
 */
static int check_time(struct fk_sink *s, const struct fk_sample *smp)
{
	struct fk_sink *root = s;

	if (!(smp->flags & FK_SAMPLE_TIME) || fk_time_ns_fits_i64(smp->time_ns))
		return 0;
	while (root->parent)
		root = root->parent;
	if (__atomic_exchange_n(&root->time_refused, 1, __ATOMIC_RELAXED) == 0) {
		fk_log_bare(FK_LOG_ERROR, "%s: a sample's time, %" PRId64 " ns, is beyond the +-2^62 ns "
		            "flamekit can order (" FK_TIME_YEARS " years either side of 0)",
		            s->name ? s->name : "an input", smp->time_ns);
	}
	return FK_ERR_DATA;
}

int fk_sink_push(struct fk_sink *s, const struct fk_sample *smp, fk_node_t *out)
{
	struct push_attrs none = { NULL, 0 };
	int rc = check_time(s, smp);

	return rc < 0 ? rc : push_frames(s, smp, &none, out);
}

int fk_sink_push_node(struct fk_sink *s, fk_node_t node, const struct fk_sample *smp)
{
	struct push_attrs none = { NULL, 0 };
	int rc = check_time(s, smp);

	return rc < 0 ? rc : push_known(s, node, smp, &none);
}

int fk_sink_push_child(struct fk_sink *s, fk_node_t parent, const struct fk_frameref *fr,
                       fk_node_t *node)
{
	struct fk_profile *p = s->p;
	bool plain = plain_name(fr);
	fk_frame_t id;

	*node = FK_NODE_NONE;
	if (s->filters)
		return 0; /* they see whole stacks: the plugin pushes the frames */
	if (parent >= p->tree.nnodes)
		return FK_ERR_USAGE;
	id = intern_frame(p, fr, plain, plain ? fk_intern_hash(fr->name, fr->len) : 0);
	if (id == FK_FRAME_NONE || (*node = fk_tree_child(&p->tree, parent, id)) == FK_NODE_NONE)
		return FK_ERR_NOMEM;
	return 0;
}

int fk_sink_push_ext(struct fk_sink *s, fk_node_t known, const struct fk_sample *smp,
                     const struct fk_sample_ext *ext, fk_node_t *out)
{
	struct push_attrs pa = { NULL, 0 };
	int rc = check_time(s, smp);

	if (rc < 0)
		return rc;
	/* a field counts only when the plugin's struct_size covers it */
	if (ext && ext->struct_size >= offsetof(struct fk_sample_ext, nattrs) + sizeof ext->nattrs &&
	    ext->nattrs) {
		pa.v = ext->attrs;
		pa.n = ext->nattrs;
		if (!pa.v)
			return FK_ERR_USAGE;
	}
	if (known == FK_NODE_NONE)
		return push_frames(s, smp, &pa, out);
	return push_known(s, known, smp, &pa);
}
