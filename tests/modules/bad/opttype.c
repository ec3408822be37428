/* An option type no engine knows (written as a bare table entry: FK_OPTION
 * would refuse to compile it). */
#include "common.h"

static const struct fk_option options[] = {
	{ 99, "depth", NULL, offsetof(struct opts, depth), "how deep" },
	FK_OPTION_END,
};

BAD_PLUGIN("opttype", options, sizeof(struct opts))
