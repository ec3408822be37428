/*
 * The command's options: one table (cli/options.c), as nbdkit's
 * server/options.h, from which the spellings (cli/canon.c), the parser,
 * the --help text, "did you mean" and the shell completion
 * (cli/completion.c) are all derived.  Plugin options stay in their
 * plugins' FK_OPTION tables and join the same machinery: canon.c adds
 * them to the names a command accepts, and the parser hands them to the
 * command's callback.
 */
#ifndef FK_CLI_OPTIONS_H
#define FK_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The commands, as bits of cli_opt.cmds. */
enum {
	CMD_COLLAPSE = 1 << 0,
	CMD_GRAPH = 1 << 1,
	CMD_DIFF = 1 << 2,
	CMD_MERGE = 1 << 3,
	CMD_RUN = 1 << 4,
	CMD_PLUGINS = 1 << 5,
	CMD_COMPLETION = 1 << 6,
	CMD_ALL = (1 << 7) - 1,
};

/* What a parse keeps: cli_args.v[id]. */
enum cli_opt_id {
	OPT_TEXT = -1, /* a row of the help only (operands, plugin options) */
	OPT_PLUGIN_DIR,
	OPT_THREADS,
	OPT_SHARD,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_NORMALIZE,
	OPT_STRIP_HEX,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_OUTPUT_PLUGIN,
	OPT_FLAMECHART,
	OPT_DEMANGLE,
	OPT_CHECK,
	OPT_SET,
	OPT_PLUGIN_HELP,
	OPT_PLUGIN_PROBE,
	OPT_NARROW,    /* an option of the narrow filter plugin, its name the same */
	OPT_ALIAS,     /* another tool's spelling of `alias` (cli_canon rewrites it) */
	OPT_SAME,      /* another tool's option that asks for flamekit's behaviour */
	OPT_WHOLE,     /* a plugin's option (the plugin parses it) that is only
	                * spelled whole, even where a prefix would reach it */
	OPT_COUNT
};

/* How an option takes its value. */
enum cli_arg {
	ARG_NONE,
	ARG_REQUIRED,
	ARG_OPTIONAL, /* only as --NAME=V */
	ARG_NUMBER,   /* --NAME=N, or --NAME N when N is a number; without one the
	               * option is the input plugin's flag of the same name (perf's
	               * --pid, stackcollapse-perf.pl's) */
};

struct cli_opt {
	int id;              /* enum cli_opt_id */
	const char *name;    /* long name without "--"; NULL for OPT_TEXT and
	                      * for a short-only OPT_ALIAS */
	char shortopt;       /* one letter after one dash, or 0 */
	int arg;             /* enum cli_arg */
	const char *argname; /* in the help and messages: "FILE", "NAME" */
	const char *def;     /* the value when not given (NULL: none) */
	unsigned cmds;       /* CMD_* bits of the commands that take it */
	const char *label;   /* OPT_TEXT: the help's left column */
	const char *help;    /* one line, wrapped by the help; @INPUTS@ and
	                      * @OUTPUTS@ name the plugins loaded */
	const char *need;    /* what a missing value is: "a file name" */
	const char *alias;   /* OPT_ALIAS: the option it stands for, the
	                      * table's or a plugin's ("inverted") */
	bool whole;          /* only spelled whole: no prefix means it, so it
	                      * makes no flamegraph.pl prefix ambiguous (--col
	                      * stays --colors) */
};

/* The table, ended by a row with cmds 0.  Options every command takes
 * (cmds CMD_ALL) come first, then each command's in its help's order. */
extern const struct cli_opt cli_options[];

/* The CMD_* bit of command `cmd`, 0 for none. */
unsigned cli_cmd_bit(const char *cmd);
/* The row of option `name` (whole long name, or a one-letter short name
 * when shortopt) that command bit `cmd` takes, or NULL.  An OPT_ALIAS row
 * is found only by cli_alias_find. */
const struct cli_opt *cli_opt_find(unsigned cmd, const char *name, size_t len, bool shortopt);

/* The OPT_ALIAS row of `name` (as cli_opt_find) for command bit cmd, or
 * NULL. */
const struct cli_opt *cli_alias_find(unsigned cmd, const char *name, size_t len, bool shortopt);

/* The names among `names` (n of them) nearest to `s` by edit distance
 * (at most 2, and less than s's length), as " --A --B" into b;
 * 0 or FK_ERR_NOMEM. */
struct fk_buf;
int cli_did_you_mean(const char *s, const char *const *names, size_t n, struct fk_buf *b);

#endif
