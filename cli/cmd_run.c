/* flamekit run: not written yet. */
#include "cli.h"

int cmd_run(struct cli *c, int argc, char **argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	return cli_usage_error("run", "this command is not implemented yet");
}
