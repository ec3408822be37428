/* Option "depth" lies beyond options_size (0): setting it would write past
 * the engine's allocation. */
#include "common.h"

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "depth", "1", struct opts, depth, "how deep"),
	FK_OPTION(FK_OPT_STRING, "name", NULL, struct opts, name, "a name"),
	FK_OPTION_END,
};

BAD_PLUGIN("optsize", options, 0)
