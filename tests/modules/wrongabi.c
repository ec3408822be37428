/* A module built for a future ABI major: must be refused. */
#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)h; (void)in; (void)s; (void)o;
	return 0;
}

static struct fk_input_plugin plugin = { .h = { .name = "wrongabi" }, .parse = parse };

const struct fk_plugin_header *flamekit_plugin_init(void);
const struct fk_plugin_header *flamekit_plugin_init(void)
{
	plugin.h.magic = FK_PLUGIN_MAGIC;
	plugin.h.abi_major = 99;
	plugin.h.abi_minor = 3;
	plugin.h.struct_size = sizeof plugin;
	plugin.h.kind = FK_PLUGIN_INPUT;
	return &plugin.h;
}
