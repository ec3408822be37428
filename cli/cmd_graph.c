/* flamekit graph: not written yet. */
#include "cli.h"

int cmd_graph(struct cli *c, int argc, char **argv)
{
	(void)c;
	(void)argc;
	(void)argv;
	return cli_usage_error("graph", "this command is not implemented yet");
}
