/*
 * The merged stack tree.  A node is (parent, frame); the children of a node
 * are found through one open-addressing table keyed on that pair, so adding
 * a stack costs one probe per frame whatever the fan-out.  Memory grows with
 * the number of distinct stack prefixes, never with the number of samples.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fk.h"


/* A slot holds the node id in its low 32 bits and the high 32 bits of the
 * edge's hash as a tag, so probing past other edges never touches their
 * nodes: a lookup costs one cache miss in the table, plus one in the node
 * array only when the tag matches.  0 is empty (the root is never a child). */
static inline uint64_t edge_hash(uint32_t parent, uint32_t frame)
{
	uint64_t k = ((uint64_t)parent << 32) | frame;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

#define TAG(hv) ((hv) & 0xffffffff00000000ull)

/* With tags, a load of 3/4 keeps probes short and the table small. */
static inline bool table_full(uint32_t nnodes, uint32_t mask)
{
	return ((uint64_t)nnodes + 1) * 4 > ((uint64_t)mask + 1) * 3;
}

int fk_tree_init(struct fk_tree *t)
{
	memset(t, 0, sizeof *t);
	t->capnodes = 1024;
	t->nodes = fk_malloc(t->capnodes * sizeof *t->nodes);
	t->mask = 2047;
	t->slots = fk_calloc((size_t)t->mask + 1, sizeof *t->slots);
	if (!t->nodes || !t->slots) {
		fk_tree_free(t);
		return FK_ERR_NOMEM;
	}
	memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	t->nodes[0].parent = FK_NODE_NONE;
	t->nodes[0].frame = FK_FRAME_NONE;
	t->nodes[0].wi = FK_NO_WEIGHT;
	t->nnodes = 1;
	return 0;
}

static void unfinish(struct fk_tree *t)
{
	fk_free(t->total);
	fk_free(t->kid_start);
	fk_free(t->kids);
	t->total = NULL;
	t->kid_start = t->kids = NULL;
	t->finished = false;
}

void fk_tree_free(struct fk_tree *t)
{
	unfinish(t);
	fk_free(t->nodes);
	fk_free(t->w);
	fk_free(t->slots);
	memset(t, 0, sizeof *t);
}

/* Double the edge table, or rebuild it (slots == NULL after finish) at the
 * size the node count needs. */
static int grow_slots(struct fk_tree *t)
{
	uint32_t nmask = t->slots ? t->mask * 2 + 1 : 2047, i;
	uint64_t *ns;

	while (table_full(t->nnodes, nmask))
		nmask = nmask * 2 + 1;
	ns = fk_calloc((size_t)nmask + 1, sizeof *ns);
	if (!ns)
		return FK_ERR_NOMEM;
	for (i = 1; i < t->nnodes; i++) {
		uint64_t hv = edge_hash(t->nodes[i].parent, t->nodes[i].frame);
		size_t j = hv & nmask;
		while (ns[j])
			j = (j + 1) & nmask;
		ns[j] = TAG(hv) | i;
	}
	fk_free(t->slots);
	t->slots = ns;
	t->mask = nmask;
	return 0;
}

fk_node_t fk_tree_find_child(const struct fk_tree *t, fk_node_t parent, fk_frame_t frame)
{
	uint64_t hv, e;
	size_t j;

	if (!t->slots) {
		/* finished: the edge table was dropped; children are sorted lists */
		for (uint32_t k = t->kid_start[parent]; k < t->kid_start[parent + 1]; k++)
			if (t->nodes[t->kids[k]].frame == frame)
				return t->kids[k];
		return FK_NODE_NONE;
	}
	hv = edge_hash(parent, frame);
	for (j = hv & t->mask; (e = t->slots[j]) != 0; j = (j + 1) & t->mask) {
		uint32_t id = (uint32_t)e;
		if (TAG(e) == TAG(hv) && t->nodes[id].parent == parent && t->nodes[id].frame == frame)
			return id;
	}
	return FK_NODE_NONE;
}

fk_node_t fk_tree_child(struct fk_tree *t, fk_node_t parent, fk_frame_t frame)
{
	uint64_t hv, e;
	uint32_t id;
	size_t j;
	struct fk_node *n;

	if (!t->slots && grow_slots(t) < 0)
		return FK_NODE_NONE;
	hv = edge_hash(parent, frame);
	for (j = hv & t->mask; (e = t->slots[j]) != 0; j = (j + 1) & t->mask) {
		id = (uint32_t)e;
		if (TAG(e) == TAG(hv) && t->nodes[id].parent == parent && t->nodes[id].frame == frame)
			return id;
	}
	if (t->nnodes >= UINT32_MAX - 2)
		return FK_NODE_NONE;
	if (table_full(t->nnodes, t->mask)) {
		if (grow_slots(t) < 0)
			return FK_NODE_NONE;
		j = hv & t->mask;
		while (t->slots[j])
			j = (j + 1) & t->mask;
	}
	if (t->nnodes == t->capnodes) {
		uint32_t cap = t->capnodes * 2;
		struct fk_node *nn = fk_realloc(t->nodes, (size_t)cap * sizeof *nn);
		if (!nn)
			return FK_NODE_NONE;
		t->nodes = nn;
		t->capnodes = cap;
	}
	if (t->finished)
		unfinish(t);
	id = t->nnodes++;
	n = &t->nodes[id];
	n->parent = parent;
	n->frame = frame;
	n->depth = t->nodes[parent].depth + 1;
	n->wi = FK_NO_WEIGHT;
	t->slots[j] = TAG(hv) | id;
	return id;
}

/* Room for `more` nodes: the node array and the edge table grown once,
 * before a run of inserts that must not move them. */
static int reserve(struct fk_tree *t, size_t more)
{
	if ((size_t)t->nnodes + more >= UINT32_MAX - 2)
		return FK_ERR_LIMIT;
	if (!t->slots && grow_slots(t) < 0)
		return FK_ERR_NOMEM;
	while (table_full((uint32_t)(t->nnodes + more), t->mask))
		if (grow_slots(t) < 0)
			return FK_ERR_NOMEM;
	if (t->nnodes + more > t->capnodes) {
		size_t cap = t->capnodes;
		while (cap < t->nnodes + more)
			cap *= 2;
		struct fk_node *nn = fk_realloc(t->nodes, cap * sizeof *nn);
		if (!nn)
			return FK_ERR_NOMEM;
		t->nodes = nn;
		t->capnodes = (uint32_t)cap;
	}
	return 0;
}

#define PATH_BATCH 64

fk_node_t fk_tree_insert(struct fk_tree *t, const fk_frame_t *f, size_t n)
{
	return fk_tree_insert_at(t, FK_NODE_ROOT, f, n, NULL);
}

fk_node_t fk_tree_insert_at(struct fk_tree *t, fk_node_t node, const fk_frame_t *f, size_t n,
                            fk_node_t *ids)
{
	fk_node_t c;
	size_t i = 0;

	if (!t->slots && grow_slots(t) < 0)
		return FK_NODE_NONE;
	/* down the part of the stack the tree already has */
	while (i < n && (c = fk_tree_find_child(t, node, f[i])) != FK_NODE_NONE) {
		node = c;
		if (ids)
			ids[i] = c;
		i++;
	}
	/* The rest is new: its node ids are the next ones in order, so every
	 * edge hash is known now.  Fetch the table slots of a batch at once
	 * (their cache misses overlap), then insert. */
	while (i < n) {
		uint64_t hv[PATH_BATCH];
		size_t k, m = n - i < PATH_BATCH ? n - i : PATH_BATCH;
		if (reserve(t, m) < 0)
			return FK_NODE_NONE;
		if (t->finished)
			unfinish(t);
		for (k = 0; k < m; k++) {
			uint32_t parent = k ? t->nnodes + (uint32_t)k - 1 : node;
			hv[k] = edge_hash(parent, f[i + k]);
			__builtin_prefetch(&t->slots[hv[k] & t->mask], 1);
		}
		for (k = 0; k < m; k++) {
			uint32_t id = t->nnodes++;
			struct fk_node *nd = &t->nodes[id];
			size_t j = hv[k] & t->mask;
			nd->parent = node;
			nd->frame = f[i + k];
			nd->depth = t->nodes[node].depth + 1;
			nd->wi = FK_NO_WEIGHT;
			while (t->slots[j])
				j = (j + 1) & t->mask;
			t->slots[j] = TAG(hv[k]) | id;
			node = id;
			if (ids)
				ids[i + k] = id;
		}
		i += m;
	}
	return node;
}

int fk_tree_add(struct fk_tree *t, fk_node_t n, const double *w)
{
	struct fk_node *nd = &t->nodes[n];

	if (nd->wi == FK_NO_WEIGHT) {
		if (t->nw == t->capw) {
			uint32_t cap = t->capw ? t->capw * 2 : 1024;
			double (*v)[FK_SERIES_MAX] = fk_realloc(t->w, (size_t)cap * sizeof *v);
			if (!v)
				return FK_ERR_NOMEM;
			t->w = v;
			t->capw = cap;
		}
		for (int s = 0; s < FK_SERIES_MAX; s++)
			t->w[t->nw][s] = 0;
		nd->wi = t->nw++;
	}
	for (int s = 0; s < FK_SERIES_MAX; s++)
		t->w[nd->wi][s] += w[s];
	if (t->finished)
		unfinish(t);
	return 0;
}

int fk_tree_path(const struct fk_tree *t, fk_node_t n, fk_frame_t **out, size_t *cap, size_t *len)
{
	uint32_t d = t->nodes[n].depth, i;

	if (d > *cap) {
		size_t nc = d + 64;
		fk_frame_t *v = fk_realloc(*out, nc * sizeof *v);
		if (!v)
			return FK_ERR_NOMEM;
		*out = v;
		*cap = nc;
	}
	for (i = d; i > 0; i--) {
		(*out)[i - 1] = t->nodes[n].frame;
		n = t->nodes[n].parent;
	}
	*len = d;
	return 0;
}

/*
 * Sibling order.  flamegraph.pl sorts whole folded lines and lays frames out
 * in the order their first line appears, so a child that ends a stack sorts
 * by its bare name and one that only leads to deeper frames sorts by
 * "name;".  (That is why "foo" with samples of its own precedes "foo.cold",
 * which precedes "foo;bar"-only "foo".)  Comparing the name bytes followed
 * by a virtual terminator (-1 for a leaf, ';' otherwise) reproduces it.
 */
struct order_ctx {
	const struct fk_tree *t;
	const struct fk_intern *in;
};

static int cmp_kids(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;
	const struct fk_node *na = &c->t->nodes[*(const uint32_t *)a];
	const struct fk_node *nb = &c->t->nodes[*(const uint32_t *)b];
	const struct fk_frame_info *fa = &c->in->frames[na->frame];
	const struct fk_frame_info *fb = &c->in->frames[nb->frame];
	size_t m = fa->len < fb->len ? fa->len : fb->len;
	int r = memcmp(fa->name, fb->name, m), ca, cb;

	if (r)
		return r;
	ca = fa->len > m ? (unsigned char)fa->name[m] : na->wi != FK_NO_WEIGHT ? -1 : ';';
	cb = fb->len > m ? (unsigned char)fb->name[m] : nb->wi != FK_NO_WEIGHT ? -1 : ';';
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return fa->len < fb->len ? -1 : fa->len > fb->len ? 1 : 0;
}

int fk_tree_finish(struct fk_tree *t, const struct fk_intern *in)
{
	uint32_t n = t->nnodes, i;
	struct order_ctx ctx = { t, in };

	if (t->finished)
		return 0;
	unfinish(t);
	/* No more inserts are expected: give the edge table's memory to the
	 * totals and child lists (fk_tree_child rebuilds it if needed). */
	fk_free(t->slots);
	t->slots = NULL;
	t->total = fk_calloc((size_t)n * FK_SERIES_MAX, sizeof *t->total);
	t->kid_start = fk_calloc((size_t)n + 1, sizeof *t->kid_start);
	t->kids = fk_malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof *t->kids);
	if (!t->total || !t->kid_start || !t->kids) {
		unfinish(t);
		return FK_ERR_NOMEM;
	}
	for (i = n; i-- > 0;) {
		for (int s = 0; s < FK_SERIES_MAX; s++) {
			t->total[(size_t)i * FK_SERIES_MAX + s] += fk_node_self(t, i, s);
			if (i)
				t->total[(size_t)t->nodes[i].parent * FK_SERIES_MAX + s] +=
					t->total[(size_t)i * FK_SERIES_MAX + s];
		}
	}
	for (i = 1; i < n; i++)
		t->kid_start[t->nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		t->kid_start[i + 1] += t->kid_start[i];
	/* each parent's start moves to its end as its children are placed,
	 * which is the next parent's start: one shift puts them back */
	for (i = 1; i < n; i++)
		t->kids[t->kid_start[t->nodes[i].parent]++] = i;
	memmove(t->kid_start + 1, t->kid_start, (size_t)n * sizeof *t->kid_start);
	t->kid_start[0] = 0;
	for (i = 0; i < n; i++) {
		uint32_t k = t->kid_start[i + 1] - t->kid_start[i];
		if (k > 1)
			qsort_r(t->kids + t->kid_start[i], k, sizeof *t->kids, cmp_kids, &ctx);
	}
	t->finished = true;
	return 0;
}
