/* An input descriptor registered as an output, the way the 1.1 macros let
 * FLAMEKIT_REGISTER_OUTPUT(an_input_plugin) compile: the entry point is
 * written by hand here because the 1.2 macro refuses it.  The engine would
 * call parse() as render(); what gives it away is the probe pointer read as
 * the output's `needs` flags. */
#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	(void)h; (void)in; (void)s; (void)o;
	return 0;
}

static int probe(const unsigned char *buf, size_t len)
{
	(void)buf; (void)len;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = { .name = "wrongkind", .version = "0", .description = "broken" },
	.probe = probe, /* read as the output's `needs`: no such flags */
	.parse = parse, /* read as render: the loader cannot tell a function's type */
};

FK_EXPORT const struct fk_plugin_header *flamekit_plugin_init(void);
FK_EXPORT const struct fk_plugin_header *flamekit_plugin_init(void)
{
	plugin.h.magic = FK_PLUGIN_MAGIC;
	plugin.h.abi_major = FK_ABI_MAJOR;
	plugin.h.abi_minor = FK_ABI_MINOR;
	plugin.h.struct_size = (uint32_t)sizeof plugin;
	plugin.h.kind = FK_PLUGIN_OUTPUT;
	return &plugin.h;
}
