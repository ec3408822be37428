/*
 * libfkcpuhead: the old .cpuprofile's "head" tree (cpuhead.h).
 *
 * Inside the tree the JSON alternates: a node (an object), its "children"
 * (an array), a child (an object), ...  So one entry per open node is the
 * whole state: its members so far, the key whose value comes next, and
 * whether its children's array is open.  Containers inside a node that
 * are not its children are only counted (skip), never looked into.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpuhead.h"

enum key { H_OTHER, H_ID, H_FN, H_URL, H_LINE, H_HITS, H_KIDS };

struct fk_cpuhead_level {
	size_t number;
	size_t text_mark, kid_mark;  /* the text and ids stacks at its start */
	size_t fn_off, fn_len, url_off, url_len;
	double id, line, hits;
	unsigned seen;               /* keys met, one bit each: the first counts */
	unsigned char key;           /* the key whose value comes next */
	unsigned char in_kids;       /* its "children" array is open */
	unsigned char has_id, has_fn, has_url, has_line;
};

static const struct { const char *name; unsigned char key; } keys[] = {
	{ "id", H_ID }, { "functionName", H_FN }, { "url", H_URL }, { "lineNumber", H_LINE },
	{ "hitCount", H_HITS }, { "children", H_KIDS },
};

static struct fk_cpuhead_level *top(struct fk_cpuhead *t)
{
	return &t->lv[t->depth - 1];
}

void fk_cpuhead_init(struct fk_cpuhead *t, struct fk_json *j, const struct fk_cpuhead_ops *ops, void *ctx)
{
	memset(t, 0, sizeof *t);
	t->h = j->h;
	t->j = j;
	t->ops = ops;
	t->ctx = ctx;
}

int fk_cpuhead_active(const struct fk_cpuhead *t)
{
	return t->depth > 0;
}

/* A new node: the root, or a child of the top node. */
static int push_node(struct fk_cpuhead *t)
{
	struct fk_cpuhead_level *l;

	if (t->depth >= FK_CPUHEAD_MAX_DEPTH) {
		char msg[96];
		snprintf(msg, sizeof msg, "the \"head\" tree is more than %d nodes deep", FK_CPUHEAD_MAX_DEPTH);
		return t->ops->fail(t->ctx, msg, 1);
	}
	if (FK_JSON_GROW(t->h, t->lv, t->caplv, t->depth + 1) < 0)
		return fk_json_nomem(t->j);
	l = &t->lv[t->depth++];
	memset(l, 0, sizeof *l);
	l->number = ++t->count;
	l->text_mark = t->tlen;
	l->kid_mark = t->nkids;
	return 1;
}

int fk_cpuhead_begin(struct fk_cpuhead *t)
{
	t->skip = 0;
	return push_node(t);
}

/* A child of the top node that is not an object. */
static int bad_child(struct fk_cpuhead *t)
{
	char msg[96];

	snprintf(msg, sizeof msg, "a child of node number %zu of the \"head\" tree is not an object",
	         top(t)->number);
	return t->ops->fail(t->ctx, msg, 0);
}

static int add_text(struct fk_cpuhead *t, const unsigned char *s, size_t n, size_t *off, size_t *len)
{
	if (FK_JSON_GROW(t->h, t->text, t->tcap, t->tlen + n + 1) < 0)
		return fk_json_nomem(t->j);
	memcpy(t->text + t->tlen, s, n);
	*off = t->tlen;
	*len = n;
	t->tlen += n;
	return 1;
}

int fk_cpuhead_scalar(struct fk_cpuhead *t, int type, double num, const unsigned char *s, size_t len)
{
	struct fk_cpuhead_level *l;

	if (t->skip)
		return 1;
	l = top(t);
	if (l->in_kids)
		return bad_child(t);
	switch (l->key) {
	case H_ID:
		if (type == 'n')
			l->has_id = 1, l->id = num;
		break;
	case H_HITS:
		if (type == 'n')
			l->hits = num;
		break;
	case H_LINE:
		if (type == 'n')
			l->has_line = 1, l->line = num - 1; /* 1-based in the head, as DevTools read it */
		break;
	case H_FN:
		if (type == 's')
			return l->has_fn = 1, add_text(t, s, len, &l->fn_off, &l->fn_len);
		break;
	case H_URL:
		if (type == 's')
			return l->has_url = 1, add_text(t, s, len, &l->url_off, &l->url_len);
		break;
	}
	return 1;
}

int fk_cpuhead_key(struct fk_cpuhead *t, const unsigned char *s, size_t len)
{
	struct fk_cpuhead_level *l;

	if (t->skip)
		return 1;
	l = top(t);
	l->key = H_OTHER;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (strlen(keys[i].name) == len && !memcmp(keys[i].name, s, len)) {
			if (!(l->seen & (1u << keys[i].key)))
				l->key = keys[i].key;
			l->seen |= 1u << keys[i].key;
			break;
		}
	return 1;
}

int fk_cpuhead_open(struct fk_cpuhead *t, int is_map)
{
	struct fk_cpuhead_level *l = top(t);

	if (!t->skip && l->in_kids) {
		if (is_map)
			return push_node(t);
		if (bad_child(t) == 0)
			return 0;
	} else if (!t->skip && l->key == H_KIDS && !is_map) {
		l->in_kids = 1;
		l->key = H_OTHER;
		return 1;
	}
	/* anything else inside a node: counted, not read */
	if (t->skip >= FK_JSON_MAX_DEPTH)
		return 0; /* a syntax error at this byte, as anywhere else */
	t->skip++;
	return 1;
}

/* The top node is complete: hand it on, then forget it but its id, which
 * joins its parent's children. */
static int end_node(struct fk_cpuhead *t)
{
	struct fk_cpuhead_level *l = top(t);
	struct fk_cpuhead_node n;
	int rc;

	memset(&n, 0, sizeof n);
	n.number = l->number;
	n.has_id = l->has_id;
	n.id = l->id;
	n.has_fn = l->has_fn;
	n.fn = l->has_fn && t->text ? t->text + l->fn_off : "";
	n.fn_len = l->fn_len;
	n.has_url = l->has_url;
	n.url = l->has_url && t->text ? t->text + l->url_off : "";
	n.url_len = l->url_len;
	n.has_line = l->has_line;
	n.line = l->line;
	n.hits = l->hits;
	n.kids = t->kids ? t->kids + l->kid_mark : NULL; /* NULL + 0 is undefined */
	n.nkids = t->nkids - l->kid_mark;
	if ((rc = t->ops->node(t->ctx, &n)) == 0)
		return 0;
	t->tlen = l->text_mark;
	t->nkids = l->kid_mark;
	t->depth--;
	if (t->depth > 0) { /* room for it: the children it had */
		if (FK_JSON_GROW(t->h, t->kids, t->capkids, t->nkids + 1) < 0)
			return fk_json_nomem(t->j);
		t->kids[t->nkids++] = n.has_id ? n.id : NAN;
	}
	return rc;
}

int fk_cpuhead_close(struct fk_cpuhead *t)
{
	struct fk_cpuhead_level *l;

	if (t->skip) {
		t->skip--;
		return 1;
	}
	l = top(t);
	if (l->in_kids) {
		l->in_kids = 0;
		return 1;
	}
	return end_node(t);
}

void fk_cpuhead_free(struct fk_cpuhead *t)
{
	t->h->free(t->lv);
	t->h->free(t->text);
	t->h->free(t->kids);
	t->lv = NULL;
	t->text = NULL;
	t->kids = NULL;
	t->depth = t->caplv = t->tcap = t->capkids = t->tlen = t->nkids = 0;
}
