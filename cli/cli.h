/* The flamekit command: shared pieces of the subcommands. */
#ifndef FK_CLI_H
#define FK_CLI_H

#include "../engine/flamekit-engine.h"
#include "options.h"

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
	int load_rc;         /* cli_load's status, returned by each later call */
	char **owned;        /* argument strings cli_canon made; freed by main */
	size_t nowned;
	/* What cli_canon read before the plugins' options were known (they
	 * point into argv): graph's and collapse's --format (NULL: none) and
	 * graph's drawer, the one default-output rule's answer. */
	const char *format, *drawer;
	/* Every name the command takes (the table's, its plugins'), for "did
	 * you mean"; owned, freed by main. */
	const char **names;
	size_t nnames;
};

struct cli_command {
	const char *name;
	int (*run)(struct cli *c, int argc, char **argv);
	const char *usage;   /* "collapse [OPTIONS] [FILE...]" */
	const char *summary; /* one line */
};

extern const struct cli_command cli_commands[];

/* A command line parsed against the table (cli/args.c).  v[id] is the
 * last value given for option id ("1" for a flag), or its row's default;
 * files are the operands; sets every --set in order.  The strings point
 * into argv or the table; the arrays are owned (cli_args_free). */
struct cli_args {
	const char *v[OPT_COUNT];
	bool given[OPT_COUNT];
	const char **files;
	size_t nfiles;
	const char **sets;
	size_t nsets;
	/* the narrowing options (OPT_NARROW rows), in order: the narrow
	 * filter's option names and values ("1" for a flag) */
	const char **nnames, **nvalues;
	size_t nnarrow;
};
/* An option the table does not have (a plugin's): argv[*i] is it; 1 taken
 * (with its value), 0 not one, FK_ERR_USAGE / FK_ERR_NOMEM after
 * reporting. */
typedef int (*cli_other_opt)(void *ctx, int argc, char **argv, int *i);
/* Parse command cmd's arguments (argv[0] is its name; cli_canon has
 * rewritten them): table options into a (the common ones applied to c at
 * once: --quiet, --threads, ...), others to other(ctx, ...) when not NULL,
 * operands into a->files.  An unknown option is a usage error: "unknown
 * option '--x'" + hint (NULL: none), and the nearest spellings.  0, or
 * FK_ERR_USAGE / FK_ERR_NOMEM after reporting. */
int cli_parse(struct cli *c, const char *cmd, int argc, char **argv, cli_other_opt other,
              void *ctx, const char *hint, struct cli_args *a);
void cli_args_free(struct cli_args *a);
/* 'flamekit help CMD' from the table: the options of cmd's rows, then the
 * common ones, plugin lists from r.  0 or FK_ERR_NOMEM (reported). */
int cli_help_options(const char *cmd, const struct fk_registry *r);
/* Rewrite the arguments of command `cmd` (argv[0] is its name) in place to
 * their canonical spellings: a unique prefix of a long option, or a long
 * option after one dash (-title=x), becomes "--NAME[=V]".  The names are
 * the command's, the common ones and those of the plugins it will use,
 * which it loads (after registering every --plugin-dir).  An ambiguous
 * prefix is reported as a usage error listing the candidates. */
int cli_canon(struct cli *c, const char *cmd, int argc, char **argv);
/* Register the --plugin-dir directories of command cmd's arguments, in
 * any spelling cli_canon accepts, without rewriting them (for --help,
 * which loads the plugins to list them).  0 or FK_ERR_NOMEM, reported. */
int cli_plugin_dirs(struct cli *c, const char *cmd, int argc, char **argv);
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

/* The input side of collapse and graph (cli/inputs.c). */
struct cli_inputs {
	struct cli *cli;
	const char *cmd;              /* for messages */
	const struct fk_plugin *pl;   /* NULL: --format auto, detected per file */
	void *opts;                   /* pl's options (owned) */
	struct pending pd;            /* options kept for the detected plugin */
	char **names;                 /* the names pd points to (owned) */
	size_t nnames;
	const char **files;           /* point into argv; "-" when none */
	size_t nfiles;
	int demangle;                 /* enum fk_demangle_choice: --demangle, --no-demangle
	                               * (FK_DMG_PLUGIN: each input's plugin's default) */
	const struct cli_args *args;  /* the narrowing options (nnarrow 0: none)
	                               * and --strip-hex */
};
/* Find the plugin of `format` ("auto": none) and make its options; room
 * for argc files.  0, or FK_ERR_USAGE / FK_ERR_NOMEM after reporting. */
int cli_inputs_init(struct cli *c, struct cli_inputs *in, const char *format, const char *cmd,
                    int argc);
/* --demangle[=full|short|no] of command cmd (value NULL: given without
 * '='; --no-demangle is --demangle=no): an enum fk_demangle_choice into
 * *choice; 0, or FK_ERR_USAGE after reporting. */
int cli_demangle_opt(const char *cmd, const char *value, int *choice);
/* argv[*i] as an input option: 1 taken (with its value), 0 not one,
 * FK_ERR_USAGE / FK_ERR_NOMEM after reporting. */
int cli_inputs_opt(struct cli *c, struct cli_inputs *in, int argc, char **argv, int *i);
/* Read the files into one output (out_opts NULL: its defaults); returns
 * the exit status. */
int cli_inputs_run(struct cli *c, struct cli_inputs *in, const struct fk_plugin *out_pl,
                   void *out_opts, const char *outpath);
void cli_inputs_free(struct cli_inputs *in);
/* The narrow filter with a's narrowing options, added to fc (nothing when
 * there are none).  0, or the exit status after reporting. */
int cli_narrow_add(struct cli *c, const char *cmd, const struct cli_args *a,
                   struct fk_filter_chain *fc);
/* The strip-hex filter added to fc when a has --strip-hex (collapse,
 * graph; diff's -s is the engine's, fk_diff.strip_hex).  0, or the exit
 * status after reporting. */
int cli_strip_hex_add(struct cli *c, const char *cmd, const struct cli_args *a,
                      struct fk_filter_chain *fc);
int cmd_collapse(struct cli *c, int argc, char **argv);
int cmd_plugins(struct cli *c, int argc, char **argv);
int cmd_graph(struct cli *c, int argc, char **argv);
/* The rest of 'flamekit help graph': every option of the svg plugin in r,
 * with its default. */
int graph_help(const struct fk_registry *r);
int cmd_diff(struct cli *c, int argc, char **argv);
int cmd_merge(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_completion(struct cli *c, int argc, char **argv);

#endif
