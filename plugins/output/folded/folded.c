/*
 * Output plugin "folded": one line per distinct stack, `a;b;c COUNT`, in
 * byte order of the whole line's stack, as the stackcollapse scripts print
 * (LC_ALL=C sort).  A stack whose count is 0 is kept.  Two-series profiles
 * (differential input) print both counts, baseline first.
 *
 * Byte order without building every line: the lines under one node are its
 * children's own lines (key "name") and their subtrees (key "name;"), and
 * sorting those keys among siblings gives exactly the order of the full
 * strings, because no name contains ';'.  The walk is iterative, so a
 * 100,000-frame stack does not recurse.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "folded/fkfolded.h"
#include "vector/fkvector.h"

/* One line (a leaf) or block (a subtree) under a node, with its name
 * looked up once for sorting and printing. */
struct item {
	const char *name;
	size_t len;
	uint64_t it;     /* (child node << 1) | is_block */
};

struct level {
	struct item *items; /* kept for the next node at this depth */
	size_t cap;
	size_t n, pos;
	size_t pathlen;  /* path length before this level's names */
};

/* Room after a line's path: " W1 W2\n", each weight at most 64 bytes. */
#define LINE_TAIL (2 * 64 + 3)

struct ctx {
	const struct fk_host *h;
	const struct fk_profile *p;
};

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->name, y->name, m), cx, cy;

	if (r)
		return r;
	cx = x->len > m ? (unsigned char)x->name[m] : (x->it & 1) ? ';' : -1;
	cy = y->len > m ? (unsigned char)y->name[m] : (y->it & 1) ? ';' : -1;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)(x->it & 1) - (int)(y->it & 1);
}

static int make_level(const struct ctx *c, fk_node_t n, struct level *lv, size_t pathlen)
{
	const struct fk_host *h = c->h;
	const fk_node_t *kids;
	size_t k = h->node_children(c->p, n, &kids), m = 0;

	lv->n = lv->pos = 0;
	lv->pathlen = pathlen;
	if (k == 0)
		return 0;
	if (fk_vector_grow((void **)&lv->items, &lv->cap, 2 * k, sizeof *lv->items, h->realloc) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < k; i++) {
		const fk_node_t *gk;
		size_t len;
		const char *name = h->frame_name(c->p, h->node_frame(c->p, kids[i]), &len);
		if (h->node_is_leaf(c->p, kids[i]))
			lv->items[m++] = (struct item){ name, len, (uint64_t)kids[i] << 1 };
		if (h->node_children(c->p, kids[i], &gk) > 0)
			lv->items[m++] = (struct item){ name, len, ((uint64_t)kids[i] << 1) | 1 };
	}
	lv->n = m;
	if (m > 1)
		qsort(lv->items, m, sizeof *lv->items, cmp_items);
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	struct ctx c = { h, p };
	struct level *st = NULL;
	size_t sp = 0, cap = 0;
	char *path = NULL;
	size_t plen = 0, pcap = 0;
	unsigned mask = h->series_mask(p);
	int two = (mask & 3) == 3, series = (mask & 1) || !(mask & 2) ? 0 : 1;
	int rc = 0;

	(void)opts;
	cap = 64;
	st = h->alloc(cap * sizeof *st);
	if (!st)
		return FK_ERR_NOMEM;
	memset(st, 0, cap * sizeof *st);
	rc = make_level(&c, FK_NODE_ROOT, &st[0], 0);
	if (rc < 0)
		goto out;
	sp = 1;
	while (sp > 0 && rc == 0) {
		struct level *lv = &st[sp - 1];
		uint64_t it;
		fk_node_t n;
		size_t nl, need;
		const char *name;

		if (lv->pos == lv->n) {
			plen = lv->pathlen;
			sp--;
			continue;
		}
		it = lv->items[lv->pos].it;
		name = lv->items[lv->pos].name;
		nl = lv->items[lv->pos++].len;
		n = (fk_node_t)(it >> 1);
		need = lv->pathlen + nl + 2 + LINE_TAIL;
		if (fk_vector_grow((void **)&path, &pcap, need, 1, h->realloc) < 0) {
			rc = FK_ERR_NOMEM;
			break;
		}
		plen = lv->pathlen;
		if (sp > 1) /* below the root: separate from the parent, even an empty name */
			path[plen++] = ';';
		memcpy(path + plen, name, nl);
		plen += nl;
		if (!(it & 1)) {
			/* the line after the path (whose buffer has room for it), written at once */
			size_t e = plen;
			path[e++] = ' ';
			if (two) {
				e += fk_folded_format(path + e, 64, h->node_self(p, n, 0));
				path[e++] = ' ';
				e += fk_folded_format(path + e, 64, h->node_self(p, n, 1));
			} else {
				e += fk_folded_format(path + e, 64, h->node_self(p, n, series));
			}
			path[e++] = '\n';
			rc = h->write(w, path, e);
			continue;
		}
		if (sp == cap) {
			struct level *ns = h->realloc(st, cap * 2 * sizeof *ns);
			if (!ns) {
				rc = FK_ERR_NOMEM;
				break;
			}
			memset(ns + cap, 0, cap * sizeof *ns);
			st = ns;
			cap *= 2;
		}
		rc = make_level(&c, n, &st[sp], plen);
		if (rc == 0)
			sp++;
	}
out:
	for (size_t i = 0; i < cap; i++)
		h->free(st[i].items);
	h->free(st);
	h->free(path);
	if (rc == FK_ERR_NOMEM)
		h->log(FK_LOG_ERROR, "out of memory writing folded stacks");
	return rc;
}

static struct fk_output_plugin plugin = {
	.h = {
		.name = "folded",
		.version = "1.0",
		.description = "folded stacks, sorted and aggregated (stackcollapse output)",
	},
	.render = render,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
