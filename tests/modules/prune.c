/*
 * Test-only output plugin "prune": a third-party output with min_weight()
 * (ABI 1.3), which returns --min.  It writes every node of the tree it is
 * handed as "PATH TOTAL", one a line (in tree order: tests sort them), so a
 * test sees what `flamekit graph FILE` built for it: the frames at least
 * --min wide whole, each narrower frame with its total and what is left
 * above it.
 */
#include <string.h>

#include <flamekit/plugin.h>

struct opts {
	double min;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_DOUBLE, "min", "-1", struct opts, min,
	          "what min_weight() returns (negative: every frame matters)"),
	FK_OPTION_END,
};

static double min_weight(const struct fk_host *h, const void *opts, double total)
{
	(void)h;
	(void)total;
	return ((const struct opts *)opts)->min;
}

/* The node n below path (len bytes), then its children. */
static int walk(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                fk_node_t n, char *path, size_t len)
{
	const fk_node_t *kids;
	size_t nk = h->node_children(p, n, &kids), nl = 0;
	const char *name = "";

	if (n != FK_NODE_ROOT) {
		name = h->frame_name(p, h->node_frame(p, n), &nl);
		if (len + nl + 2 > 4096)
			return FK_ERR_DATA;
		if (len)
			path[len++] = ';';
		memcpy(path + len, name, nl);
		len += nl;
		h->printf(w, "%.*s %g\n", (int)len, path, h->node_total(p, n, 0));
	}
	for (size_t i = 0; i < nk; i++) {
		int rc = walk(h, p, w, kids[i], path, len);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w, const void *opts)
{
	char path[4096];

	(void)opts;
	return walk(h, p, w, FK_NODE_ROOT, path, 0);
}

static struct fk_output_plugin plugin = {
	.h = { .name = "prune", .version = "1.0", .description = "test output: min_weight() and the tree it gets",
	       .options = options, .options_size = sizeof(struct opts) },
	.render = render,
	.min_weight = min_weight,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
