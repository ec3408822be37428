/*
 * A plugin compiled against the frozen ABI 1.0 header (tests/sdk/abi-1.0/,
 * a verbatim copy of include/flamekit/plugin.h as released with 1.0), not
 * the current one: whatever minor the engine speaks now, this module must
 * load, keep its callbacks and options, and work.  Each input line
 * "a/b/c" is a stack a;b;c of weight 1, under the --root frame if set.
 */
#include <string.h>

#include <flamekit/plugin.h>

#if FK_ABI_MAJOR != 1 || FK_ABI_MINOR != 0
#error "abi10.c must be built against the ABI 1.0 snapshot"
#endif

struct opts {
	const char *root;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "root", NULL, struct opts, root, "frame put under every stack"),
	FK_OPTION_END,
};

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *opts)
{
	const struct opts *o = opts;
	struct fk_frameref fr[64];
	const char *line;
	size_t len;
	int r;

	while ((r = h->getline(in, &line, &len)) > 0) {
		struct fk_sample smp;
		size_t n = 0, start = 0;

		memset(&smp, 0, sizeof smp);
		memset(fr, 0, sizeof fr);
		if (o->root) {
			fr[n].name = o->root;
			fr[n++].len = strlen(o->root);
		}
		for (size_t i = 0; i <= len && n < 64; i++) {
			if (i < len && line[i] != '/')
				continue;
			fr[n].name = line + start;
			fr[n++].len = i - start;
			start = i + 1;
		}
		if (len == 0 || n == 64) {
			h->input_skip(in, h->input_lineno(in));
			continue;
		}
		smp.frames = fr;
		smp.nframes = n;
		smp.weight[0] = 1;
		if ((r = h->push(s, &smp, NULL)) < 0)
			return r;
	}
	return r;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "abi10",
		.version = "1.0",
		.description = "built against the ABI 1.0 header",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
