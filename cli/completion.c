/* placeholder */
#include "cli.h"
int cmd_completion(struct cli *c, int argc, char **argv)
{
	(void)c; (void)argc; (void)argv;
	return EXIT_USAGE;
}
