/* A default that is not a whole number for an INT option. */
#include "common.h"

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "depth", "lots", struct opts, depth, "how deep"),
	FK_OPTION_END,
};

BAD_PLUGIN("optdefault", options, sizeof(struct opts))
