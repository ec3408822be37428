/* Two options named "depth". */
#include "common.h"

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "depth", "1", struct opts, depth, "how deep"),
	FK_OPTION(FK_OPT_STRING, "depth", NULL, struct opts, name, "a name"),
	FK_OPTION_END,
};

BAD_PLUGIN("optdup", options, sizeof(struct opts))
