/* flamekit diff: not written yet. */
#include "cli.h"

int cmd_diff(struct cli *c, int argc, char **argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	return cli_usage_error("diff", "this command is not implemented yet");
}
