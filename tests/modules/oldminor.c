/* A working plugin that declares ABI minor 0 (as one built against the 1.0
 * headers does): the loader must accept it whatever our minor is. */
#include <stddef.h>
#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *s, const void *o)
{
	const char *line;
	size_t len;
	struct fk_frameref fr = { "oldminor", 8, 0, NULL, 0 };
	struct fk_sample smp = { &fr, 1, { 1, 0 }, 0, 0, 0, 0, NULL, 0 };
	(void)o;
	while (h->getline(in, &line, &len) > 0)
		if (h->push(s, &smp, NULL) < 0)
			return FK_ERR_NOMEM;
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = { .name = "oldminor", .version = "0.9", .description = "built for ABI 1.0" },
	.parse = parse,
};

const struct fk_plugin_header *flamekit_plugin_init(void);
const struct fk_plugin_header *flamekit_plugin_init(void)
{
	plugin.h.magic = FK_PLUGIN_MAGIC;
	plugin.h.abi_major = FK_ABI_MAJOR;
	plugin.h.abi_minor = 0;
	plugin.h.struct_size = (uint32_t)sizeof plugin;
	plugin.h.kind = FK_PLUGIN_INPUT;
	return &plugin.h;
}
