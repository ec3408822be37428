/* A valid input plugin that takes a name already used ("folded"). */
#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)h; (void)in; (void)s; (void)o;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = { .name = "folded", .version = "0", .description = "impostor" },
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
