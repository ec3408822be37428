/* flamekit plugins: what is loaded, from where, each plugin's options, and
 * what the input plugins' probes make of files (--probe). */
#include <string.h>

#include "cli.h"

int cmd_plugins(struct cli *c, int argc, char **argv)
{
	const char *help;
	struct cli_args a;
	bool probe;
	int r = cli_parse(c, "plugins", argc, argv, NULL, NULL, NULL, &a);

	help = a.v[OPT_PLUGIN_HELP];
	probe = a.given[OPT_PLUGIN_PROBE];
	if (r == 0 && probe && help) {
		cli_usage_error("plugins", "--probe and --help cannot be given together");
		r = FK_ERR_USAGE;
	} else if (r == 0 && probe && !a.nfiles) {
		cli_usage_error("plugins", "--probe needs at least one FILE");
		r = FK_ERR_USAGE;
	} else if (r == 0 && !probe && a.nfiles) {
		cli_usage_error("plugins", "unknown argument '%s'", a.files[0]);
		r = FK_ERR_USAGE;
	}
	if (r < 0) {
		cli_args_free(&a);
		return cli_exit(r);
	}
	if (cli_load(c) < 0) {
		cli_args_free(&a);
		return EXIT_DATA;
	}
	if (probe) {
		/* every file, as far as each can be read: the status is the worst */
		int rc = 0;
		for (size_t k = 0; k < a.nfiles; k++) {
			int e = fk_probe_print(&c->reg, a.files[k], stdout);
			if (e < 0 && rc == 0)
				rc = e;
		}
		cli_args_free(&a);
		if (fflush(stdout) != 0 && rc == 0)
			rc = FK_ERR_IO;
		return cli_exit(rc);
	}
	cli_args_free(&a);
	if (help) {
		/* NAME, or KIND:NAME when an input and an output share a name. */
		const char *colon = strchr(help, ':');
		int found = 0;
		for (size_t k = 0; k < c->reg.n; k++) {
			const struct fk_plugin *pl = c->reg.v[k];
			const char *kind = fk_kind_name((int)pl->d.h.kind);
			if (colon ? (strncmp(help, kind, (size_t)(colon - help)) == 0 &&
			             kind[colon - help] == '\0' && strcmp(colon + 1, pl->d.h.name) == 0)
			          : strcmp(help, pl->d.h.name) == 0) {
				if (found++)
					putchar('\n');
				fk_options_help(pl, stdout);
			}
		}
		if (!found)
			return cli_usage_error("plugins", "no plugin named \"%s\" (see 'flamekit plugins')", help);
		return EXIT_OK;
	}
	printf("%-7s %-12s %-8s %-5s %-44s %s\n", "KIND", "NAME", "VERSION", "ABI", "DESCRIPTION", "PATH");
	for (int kind = FK_PLUGIN_INPUT; kind <= FK_PLUGIN_OUTPUT; kind++)
		for (size_t k = 0; k < c->reg.n; k++) {
			const struct fk_plugin *pl = c->reg.v[k];
			char abi[16];
			if ((int)pl->d.h.kind != kind)
				continue;
			snprintf(abi, sizeof abi, "%u.%u", pl->d.h.abi_major, pl->d.h.abi_minor);
			printf("%-7s %-12s %-8s %-5s %-44s %s\n", fk_kind_name(kind), pl->d.h.name,
			       pl->d.h.version ? pl->d.h.version : "-", abi,
			       pl->d.h.description ? pl->d.h.description : "", pl->path);
		}
	if (fflush(stdout) != 0)
		return EXIT_DATA;
	return EXIT_OK;
}
