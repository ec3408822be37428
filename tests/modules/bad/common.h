/* Shared by the deliberately broken descriptors of this directory: an
 * output plugin whose option table or descriptor breaks one loader rule
 * each (the file says which); render is never reached. */
#include <flamekit/plugin.h>

struct opts {
	long long depth;
	const char *name;
};

static int render(const struct fk_host *h, const struct fk_profile *p, struct fk_writer *w,
                  const void *o)
{
	(void)h; (void)p; (void)w; (void)o;
	return 0;
}

#define BAD_PLUGIN(NAME, OPTIONS, SIZE)                                      \
	static struct fk_output_plugin plugin = {                           \
		.h = { .name = NAME, .version = "0", .description = "broken", \
		       .options = OPTIONS, .options_size = SIZE },          \
		.render = render,                                           \
	};                                                                  \
	FLAMEKIT_REGISTER_OUTPUT(plugin)
