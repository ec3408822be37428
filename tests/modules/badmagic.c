/* A module whose descriptor has the wrong magic: must be refused. */
#include <flamekit/plugin.h>

static struct fk_input_plugin plugin = { .h = { .name = "badmagic" } };

const struct fk_plugin_header *flamekit_plugin_init(void);
const struct fk_plugin_header *flamekit_plugin_init(void)
{
	plugin.h.magic = 0xdeadbeef;
	plugin.h.abi_major = FK_ABI_MAJOR;
	plugin.h.struct_size = sizeof plugin;
	plugin.h.kind = FK_PLUGIN_INPUT;
	return &plugin.h;
}
