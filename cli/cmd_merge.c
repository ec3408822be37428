/* flamekit merge: not written yet. */
#include "cli.h"

int cmd_merge(struct cli *c, int argc, char **argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	return cli_usage_error("merge", "this command is not implemented yet");
}
