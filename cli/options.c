/*
 * The table of the command's options (see options.h).  Add an option
 * here, with its help line, and document it in a man page: the parser,
 * --help, the completion scripts and tests/man.sh all read this table.
 */
#include <string.h>

#include "cli.h"

#define ALL CMD_ALL
#define IN (CMD_COLLAPSE | CMD_GRAPH)
#define NARROW (CMD_COLLAPSE | CMD_GRAPH | CMD_DIFF)

const struct cli_opt cli_options[] = {
	/* every command's (the help's "Common options") */
	{ OPT_PLUGIN_DIR, "plugin-dir", 0, ARG_REQUIRED, "DIR", NULL, ALL, NULL,
	  "load plugins from DIR first (repeatable)", "a directory", NULL, false },
	{ OPT_THREADS, "threads", 0, ARG_REQUIRED, "N", NULL, ALL, NULL,
	  "parsing threads (default: the number of cores)", "a number", NULL, false },
	{ OPT_SHARD, "shard", 0, ARG_REQUIRED, "K/N", NULL, ALL, NULL,
	  "read only shard K (0 to N-1) of N byte ranges of each input, cut at sample "
	  "boundaries (plain files; see flamekit(1))", "K/N, e.g. --shard 0/4", NULL, false },
	{ OPT_PROGRESS, "progress", 0, ARG_NONE, NULL, NULL, ALL, NULL,
	  "show progress on stderr (default: only when it is a terminal)", NULL, NULL, false },
	{ OPT_NO_PROGRESS, "no-progress", 0, ARG_NONE, NULL, NULL, ALL, NULL,
	  "never show progress", NULL, NULL, false },
	{ OPT_QUIET, "quiet", 'q', ARG_NONE, NULL, NULL, ALL, NULL, "print errors only", NULL, NULL, false },
	{ OPT_VERBOSE, "verbose", 'v', ARG_NONE, NULL, NULL, ALL, NULL,
	  "print more (repeat for debug output)", NULL, NULL, false },

	/* diff */
	{ OPT_NORMALIZE, "normalize", 'n', ARG_NONE, NULL, NULL, CMD_DIFF, NULL,
	  "scale BEFORE's counts to AFTER's total (truncated, as difffolded.pl -n)", NULL, NULL, false },
	{ OPT_STRIP_HEX, "strip-hex", 's', ARG_NONE, NULL, NULL, CMD_DIFF, NULL,
	  "rewrite 0x<hex> to 0x... in frame names before comparing (the strip-hex filter)",
	  NULL, NULL, false },

	/* the inputs and the output */
	{ OPT_FORMAT, "format", 'f', ARG_REQUIRED, "NAME", "auto", IN, NULL,
	  "input format: auto (the default: detected) or an input plugin loaded: @INPUTS@",
	  "a format name", NULL, false },
	{ OPT_FORMAT, "format", 'f', ARG_REQUIRED, "NAME", "folded", CMD_DIFF, NULL,
	  "format of both inputs: folded (default), auto (detected) or an input plugin loaded: "
	  "@INPUTS@", "a format name", NULL, false },
	{ OPT_OUTPUT, "output", 'o', ARG_REQUIRED, "FILE", NULL, IN | CMD_DIFF | CMD_MERGE, NULL,
	  "write here (atomically) instead of stdout", "a file name", NULL, false },
	{ OPT_OUTPUT_PLUGIN, "output-plugin", 0, ARG_REQUIRED, "NAME", NULL, CMD_GRAPH, NULL,
	  "what draws: svg (default), flamechart (default with --flamechart) or another "
	  "output plugin loaded (flamekit plugins describes them): @OUTPUTS@",
	  "an output plugin name", NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_GRAPH, "GRAPH OPTIONS",
	  "flamegraph.pl's, same names and defaults: --title, --width, --minwidth, --colors, "
	  "--hash, --inverted, --reverse, --negate, --countname, ... (all listed below, with "
	  "their defaults; flamekit-graph(1) describes them); unique prefixes and -title=x work",
	  NULL, NULL, false },
	{ OPT_FLAMECHART, "flamechart", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "draw flamegraph.pl's flame chart (the samples in input order): the flamechart "
	  "plugin draws it unless --output-plugin names another", NULL, NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_COLLAPSE, "PLUGIN OPTIONS",
	  "the input plugin's options, e.g. --pid, --event-filter=cycles (flamekit plugins "
	  "--help NAME lists them)", NULL, NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_GRAPH, "INPUT OPTIONS",
	  "the input plugin's, e.g. --format perf --pid", NULL, NULL, false },
	{ OPT_DEMANGLE, "demangle", 0, ARG_OPTIONAL, "short", NULL, NARROW, NULL,
	  "demangle C++, Rust and D names as c++filt does; short drops argument lists and "
	  "Rust hashes; no: off (default: each format's own, off for FlameGraph's formats; "
	  "flamekit-formats(5))", NULL, NULL, false },
	/* only spelled whole: graph's --st stays --stroke-color */
	{ OPT_STRIP_HEX, "strip-hex", 0, ARG_NONE, NULL, NULL, IN, NULL,
	  "rewrite 0x<hex> to 0x... in frame names, so frames differing only by an "
	  "address merge (the strip-hex filter, difffolded.pl -s)", NULL, NULL, true },
	/* narrowing the profile: the narrow filter plugin's options, same names */
	{ OPT_NARROW, "focus", 0, ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "keep only the samples with a frame matching REGEX (pprof -focus)",
	  "a regular expression", NULL, true },
	{ OPT_NARROW, "ignore", 0, ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "drop the samples with a frame matching REGEX (pprof -ignore)", "a regular expression",
	  NULL, true },
	{ OPT_NARROW, "hide", 0, ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "remove the frames matching REGEX (pprof -hide)", "a regular expression", NULL, true },
	{ OPT_NARROW, "show", 0, ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "keep only the frames matching REGEX (pprof -show)", "a regular expression", NULL, true },
	{ OPT_NARROW, "tagfocus", 0, ARG_REQUIRED, "KEY=REGEX", NULL, NARROW, NULL,
	  "keep only the samples whose label KEY matches REGEX (pprof -tagfocus)", "KEY=REGEX",
	  NULL, true },
	{ OPT_NARROW, "base", 0, ARG_REQUIRED, "NAME", NULL, NARROW, NULL,
	  "keep only the samples with a frame NAME, re-rooted at the deepest one (inferno --base)",
	  "a frame name", NULL, true },
	{ OPT_NARROW, "skip-after", 0, ARG_REQUIRED, "NAME", NULL, NARROW, NULL,
	  "drop the frames between the process name and the deepest NAME (inferno-collapse "
	  "--skip-after)", "a frame name", NULL, true },
	{ OPT_NARROW, "collapse-recursion", 0, ARG_NONE, NULL, NULL, NARROW, NULL,
	  "merge each frame into its caller of the same name: a;b;b;b;c -> a;b;c", NULL, NULL, true },
	{ OPT_NARROW, "from", 0, ARG_REQUIRED, "T", NULL, NARROW, NULL,
	  "keep the samples from T seconds after the first (perf's timestamp T when T is at "
	  "least the first sample's)", "seconds", NULL, true },
	{ OPT_NARROW, "to", 0, ARG_REQUIRED, "T", NULL, NARROW, NULL,
	  "keep the samples up to T seconds after the first (or perf's timestamp T), T included",
	  "seconds", NULL, true },
	{ OPT_NARROW, "comm", 0, ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "keep only the samples whose process name matches REGEX", "a regular expression", NULL, true },
	{ OPT_NARROW, "pid", 0, ARG_NUMBER, "N", NULL, NARROW, NULL,
	  "keep only the samples of process N (--pid alone: the input's flag, as "
	  "stackcollapse-perf.pl's)", "a process id", NULL, true },
	{ OPT_NARROW, "tid", 0, ARG_NUMBER, "N", NULL, NARROW, NULL,
	  "keep only the samples of thread N (--tid alone: the input's flag)", "a thread id", NULL, true },

	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, IN, "FILE...",
	  "inputs, merged; '-' or none reads stdin; .gz is read transparently", NULL, NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_MERGE, "FILE...",
	  "folded files (one or two counts a line), .gz or '-'; sorted ones are merged as "
	  "streams, others in memory", NULL, NULL, false },

	/* run */
	{ OPT_CHECK, "check", 0, ARG_NONE, NULL, NULL, CMD_RUN, NULL,
	  "validate the job (files, plugins, options, scripts) and stop", NULL, NULL, false },
	{ OPT_SET, "set", 's', ARG_REQUIRED, "KEY=VALUE", NULL, CMD_RUN, NULL,
	  "override a job value; KEY is a dotted path with list indexes from 0, e.g. "
	  "outputs.0.options.title=Foo", "KEY=VALUE", NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_RUN, "JOB.yaml",
	  "the job (flamekit-job(5)); none runs conf/example.yaml from the data directory "
	  "($FLAMEKIT_DATADIR), writing into the current directory", NULL, NULL, false },

	/* plugins */
	{ OPT_PLUGIN_HELP, "help", 'h', ARG_REQUIRED, "NAME", NULL, CMD_PLUGINS, NULL,
	  "print NAME's description and options (KIND:NAME when an input and an output "
	  "share the name, e.g. output:folded)", "a plugin name", NULL, false },
	{ OPT_PLUGIN_PROBE, "probe", 0, ARG_NONE, NULL, NULL, CMD_PLUGINS, NULL,
	  "for each FILE, the format detection picks and every input plugin whose probe "
	  "claims it, with its confidence", NULL, NULL, false },
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_PLUGINS, "FILE...",
	  "the inputs --probe reads ('-' for stdin)", NULL, NULL, false },

	/* completion */
	{ OPT_TEXT, NULL, 0, ARG_NONE, NULL, NULL, CMD_COMPLETION, "bash|zsh",
	  "the shell whose completion script to print (make install puts both where the "
	  "shells find them)", NULL, NULL, false },

	/* Coming from perf (perf script --no-demangle) */
	{ OPT_ALIAS, "no-demangle", 0, ARG_NONE, NULL, NULL, NARROW, NULL,
	  "perf's --no-demangle: --demangle=no", NULL, "demangle=no", true },
	/* Coming from async-profiler (its converter's -I/-X): --focus, --ignore */
	{ OPT_ALIAS, "include", 'I', ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "async-profiler's -I, --include: --focus REGEX", "a regular expression", "focus", true },
	{ OPT_ALIAS, "exclude", 'X', ARG_REQUIRED, "REGEX", NULL, NARROW, NULL,
	  "async-profiler's -X, --exclude: --ignore REGEX", "a regular expression", "ignore", true },
	/* Coming from inferno (cargo-flamegraph, py-spy, rbspy): its spellings,
	 * with its meanings; where inferno and flamegraph.pl disagree,
	 * flamegraph.pl's meaning is the option's (--minwidth: pixels, N% for
	 * inferno's percentage). */
	{ OPT_ALIAS, NULL, 'i', ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "inferno's -i: --inverted", NULL, "inverted", true },
	{ OPT_ALIAS, NULL, 'c', ARG_REQUIRED, "NAME", NULL, CMD_GRAPH, NULL,
	  "inferno's -c: --colors NAME", "a palette name", "colors", true },
	{ OPT_ALIAS, "search-color", 0, ARG_REQUIRED, "COLOUR", NULL, CMD_GRAPH, NULL,
	  "inferno's spelling of --searchcolor", "a colour", "searchcolor", true },
	{ OPT_ALIAS, "nthreads", 'n', ARG_REQUIRED, "N", NULL, CMD_COLLAPSE, NULL,
	  "inferno-collapse's spelling of --threads", "a number", "threads", true },
	{ OPT_SAME, "deterministic", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "inferno's: a name's colour is the same in every run (flamekit's default: "
	  "flamegraph.pl's colour seeded by the name; --random draws random ones)", NULL, NULL, true },
	{ OPT_SAME, "truncate-text-right", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "inferno's: a name too long for its frame loses its end (flamekit's, as "
	  "flamegraph.pl's, always)", NULL, NULL, true },
	{ OPT_SAME, "pretty-xml", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "inferno's: readable XML (flamekit's SVG has one element a line already)", NULL, NULL,
	  true },
	{ OPT_SAME, "no-sort", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL,
	  "inferno's: the input is already sorted (the graph is the same either way: "
	  "flamekit merges the stacks whatever their order)", NULL, NULL, true },
	/* inferno's names of svg options: whole, so that flamegraph.pl's --col
	 * and --color stay --colors */
	{ OPT_WHOLE, "colordiffusion", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL, NULL, NULL, NULL,
	  true },
	{ OPT_WHOLE, "stroke-color", 0, ARG_REQUIRED, NULL, NULL, CMD_GRAPH, NULL, NULL, NULL, NULL,
	  true },
	{ OPT_WHOLE, "uicolor", 0, ARG_REQUIRED, NULL, NULL, CMD_GRAPH, NULL, NULL, NULL, NULL,
	  true },
	{ OPT_WHOLE, "no-javascript", 0, ARG_NONE, NULL, NULL, CMD_GRAPH, NULL, NULL, NULL, NULL,
	  true },
	{ 0, NULL, 0, ARG_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL, false },
};

static const char *const cmd_names[] = {
	"collapse", "graph", "diff", "merge", "run", "plugins", "completion",
};

unsigned cli_cmd_bit(const char *cmd)
{
	for (size_t i = 0; cmd && i < sizeof cmd_names / sizeof cmd_names[0]; i++)
		if (strcmp(cmd_names[i], cmd) == 0)
			return 1u << i;
	return 0;
}

static const struct cli_opt *find(unsigned cmd, const char *name, size_t len, bool shortopt,
                                  bool alias)
{
	for (const struct cli_opt *o = cli_options; o->cmds; o++) {
		if (!(o->cmds & cmd) || o->id == OPT_TEXT || o->id == OPT_WHOLE ||
		    (o->id == OPT_ALIAS) != alias)
			continue;
		if (shortopt ? len == 1 && o->shortopt == name[0]
		             : o->name && strlen(o->name) == len && memcmp(o->name, name, len) == 0)
			return o;
	}
	return NULL;
}

const struct cli_opt *cli_opt_find(unsigned cmd, const char *name, size_t len, bool shortopt)
{
	return find(cmd, name, len, shortopt, false);
}

const struct cli_opt *cli_alias_find(unsigned cmd, const char *name, size_t len, bool shortopt)
{
	return find(cmd, name, len, shortopt, true);
}

/* Edit distance of a (la bytes) and b, at most 64 bytes of each: an
 * insertion or a deletion costs 1, a substitution 2 (so "colr" is nearer
 * "colors" than "comm"). */
static size_t distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + 2 * (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

int cli_did_you_mean(const char *s, const char *const *names, size_t n, struct fk_buf *b)
{
	size_t len = strcspn(s, "="), best = 3;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = names[i][1] ? distance(s, len, names[i]) : (size_t)-1;
		if (d < best && d < len)
			best = d;
	}
	for (size_t i = 0; i < n && best < 3 && rc == 0; i++)
		if (names[i][1] && distance(s, len, names[i]) == best)
			rc = fk_buf_printf(b, " --%s", names[i]);
	return rc;
}
