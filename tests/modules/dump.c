/*
 * Test-only output plugin "dump": every distinct frame of the merged tree
 * with its module and the colour a filter gave it, one per line, sorted by
 * name: "NAME module=M colour=C" ("-" when unset).  Lets tests check what
 * folded output cannot show.
 */
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

static const struct fk_host *H;
static const struct fk_profile *P;

static int cmp(const void *a, const void *b)
{
	size_t la, lb;
	const char *na = H->frame_name(P, *(const fk_frame_t *)a, &la);
	const char *nb = H->frame_name(P, *(const fk_frame_t *)b, &lb);
	int r = memcmp(na, nb, la < lb ? la : lb);
	return r ? r : (la > lb) - (la < lb);
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	size_t n = h->nodes(p), k = 0;
	fk_frame_t *v = h->alloc((n + 1) * sizeof *v);

	(void)opts;
	if (!v)
		return FK_ERR_NOMEM;
	for (fk_node_t i = 1; i < n; i++) {
		fk_frame_t f = h->node_frame(p, i);
		size_t j;
		for (j = 0; j < k && v[j] != f; j++)
			;
		if (j == k)
			v[k++] = f;
	}
	H = h;
	P = p;
	qsort(v, k, sizeof *v, cmp);
	for (size_t i = 0; i < k; i++) {
		size_t nl, ml;
		const char *name = h->frame_name(p, v[i], &nl);
		const char *mod = h->frame_module(p, v[i], &ml);
		const char *col = h->frame_colour(p, v[i]);
		h->printf(w, "%.*s module=%.*s colour=%s\n", (int)nl, name, mod ? (int)ml : 1,
		          mod ? mod : "-", col ? col : "-");
	}
	h->free(v);
	return 0;
}

static struct fk_output_plugin plugin = {
	.h = { .name = "dump", .version = "1.0", .description = "test output: frames, modules, colours" },
	.render = render,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
