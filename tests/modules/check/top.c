/* A well-formed output plugin, as a third party would write it from the
 * header alone, with a range check in its check callback: `--top 0` must
 * fail before any input is read, and `run --check` must say so. */
#include <flamekit/plugin.h>

struct opts {
	long long top;
};

static int check(const struct fk_host *h, const void *opts, const char *where)
{
	const struct opts *o = opts;

	if (o->top < 1) {
		(void)where; /* the engine puts it in front of the message */
		h->log(FK_LOG_ERROR, "--top must be at least 1, not %lld", o->top);
		return FK_ERR_USAGE;
	}
	return 0;
}

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                  const void *opts)
{
	const struct opts *o = opts;

	if (!FK_HOST_HAS(h, frames))
		return h->printf(w, "frames unknown\n");
	return h->printf(w, "%zu frames, top %lld\n", h->frames(p), o->top);
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "top", "10", struct opts, top, "how many frames to list"),
	FK_OPTION_END,
};

static struct fk_output_plugin plugin = {
	.h = { .name = "top", .version = "1.0", .description = "list the top frames",
	       .options = options, .options_size = sizeof(struct opts) },
	.render = render,
	.check = check,
};

FLAMEKIT_REGISTER_OUTPUT(plugin)
