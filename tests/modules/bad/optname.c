/* An option name with capitals and '_': not a valid --option. */
#include "common.h"

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_INT, "Max_Depth", "1", struct opts, depth, "how deep"),
	FK_OPTION_END,
};

BAD_PLUGIN("optname", options, sizeof(struct opts))
