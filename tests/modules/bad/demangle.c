/* An input plugin whose demangle default (ABI 1.9) is no enum fk_demangle
 * value: refused at load, not read as some style. */
#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)h; (void)in; (void)s; (void)o;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = { .name = "baddemangle", .version = "0", .description = "broken" },
	.parse = parse,
	.demangle = 7,
};

FLAMEKIT_REGISTER_INPUT(plugin)
