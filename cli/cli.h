/* The flamekit command: shared pieces of the subcommands. */
#ifndef FK_CLI_H
#define FK_CLI_H

#include "../engine/fk.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

struct cli {
	struct fk_registry reg;
	unsigned threads;    /* 0: number of cores */
	int progress;        /* 0 never, 1 when stderr is a terminal, 2 always */
	bool loaded;
	/* --shard K/N: every input spec a command builds copies these
	 * (shard_n 0: read whole inputs). */
	unsigned shard_k, shard_n;
};

struct cli_command {
	const char *name;
	int (*run)(struct cli *c, int argc, char **argv);
	const char *usage;   /* "collapse [OPTIONS] [FILE...]" */
	const char *summary; /* one line */
	const char *help;    /* the options, preformatted */
};

extern const struct cli_command cli_commands[];

/* Options every command takes.  Returns 1 if argv[*i] was one (consuming
 * its value), 0 if not, or after reporting the error FK_ERR_USAGE or
 * FK_ERR_NOMEM (cli_exit() maps both to the exit status). */
int cli_common_opt(struct cli *c, int argc, char **argv, int *i);
extern const char cli_common_help[];
/* -o FILE, --output FILE, --output=FILE: 1 consumed (into *outpath), 0 not
 * this option, FK_ERR_USAGE after a usage error naming `cmd`. */
int cli_output_opt(const char *cmd, int argc, char **argv, int *i, const char **outpath);
/* Load the plugins (once). */
int cli_load(struct cli *c);
/* Try argv[*i] as an option of plugin pl: 1 consumed, 0 not an option of
 * pl, FK_ERR_USAGE or FK_ERR_NOMEM after reporting the error. */
int cli_plugin_opt(const struct fk_plugin *pl, void *opts, int argc, char **argv, int *i);
/* Map an engine status to an exit status. */
int cli_exit(int status);
/* "flamekit: CMD: message" + "Try 'flamekit help CMD'." and EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) FK_PRINTF(2, 3);
unsigned cli_threads(const struct cli *c);
const struct fk_plugin *cli_find(struct cli *c, int kind, const char *name, const char *cmd);

/* Input-plugin options given before the format is known (--format auto):
 * applied once detection has picked the plugin (fk_input_spec.optnames). */
struct pending {
	const char **names, **values;
	size_t n;
};
int cli_pending_add(struct pending *pd, const char *name, const char *value);
/* Any input plugin's declaration of option `name` (to know whether it
 * takes a value), or NULL. */
const struct fk_option *cli_any_input_option(const struct fk_registry *r, const char *name);

int cmd_collapse(struct cli *c, int argc, char **argv);
int cmd_plugins(struct cli *c, int argc, char **argv);
int cmd_graph(struct cli *c, int argc, char **argv);
int cmd_diff(struct cli *c, int argc, char **argv);
int cmd_merge(struct cli *c, int argc, char **argv);

/* foldsum.c: folded files summed into sorted folded output without the
 * stack tree, the same bytes as the folded input and output plugins give.
 * foldsum_applies returns the folded input plugin when every file is
 * folded (in_pl is it, or in_pl is NULL and each file is a regular file
 * detected as folded, silently), else NULL.  foldsum_run reads the files
 * in order and writes outpath (NULL or "-": stdout) all or nothing;
 * detected logs the detection as the pipeline does.  Errors are reported. */
const struct fk_plugin *foldsum_applies(struct cli *c, const struct fk_plugin *in_pl, char **files,
                                        size_t nfiles);
int foldsum_run(struct cli *c, const struct fk_plugin *pl, char **files, size_t nfiles,
                const char *outpath, bool detected);
int cmd_run(struct cli *c, int argc, char **argv);

#endif
