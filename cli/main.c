/* flamekit: the command.  Thin: parses argv and calls the engine. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifdef FK_FAULT_INJECTION
#include <execinfo.h>
#include <unistd.h>
#endif

#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "collapse", cmd_collapse, "collapse [--format NAME] [PLUGIN OPTIONS] [-o FILE] [FILE...]",
	  "read profiler output, write folded stacks",
	  "  -f, --format NAME  input format: auto (the default: detected) or an input\n"
	  "                     plugin loaded: @INPUTS@\n"
	  "  -o, --output FILE  write here (atomically) instead of stdout\n"
	  "  PLUGIN OPTIONS     the input plugin's options, e.g. --pid, --event-filter=cycles\n"
	  "                     (flamekit plugins --help NAME lists them)\n"
	  "  --demangle[=short] demangle C++, Rust and D names as c++filt does; short drops\n"
	  "                     argument lists and Rust hashes (--demangle=no: off, the default)\n"
	  "  FILE...            inputs, merged; '-' or none reads stdin; .gz is read transparently\n" },
	{ "graph", cmd_graph, "graph [OPTIONS] [FILE...]",
	  "draw an SVG flame graph (flamegraph.pl's options)",
	  "  -f, --format NAME  input format: auto (the default: detected) or an input\n"
	  "                     plugin loaded: @INPUTS@\n"
	  "  -o, --output FILE  write here (atomically) instead of stdout\n"
	  "  --output-plugin NAME  what draws: svg (default), flamechart (default with\n"
	  "                     --flamechart) or another output plugin loaded (flamekit\n"
	  "                     plugins describes them): @OUTPUTS@\n"
	  "  GRAPH OPTIONS      flamegraph.pl's, same names and defaults: --title, --width,\n"
	  "                     --minwidth, --colors, --hash, --inverted, --reverse,\n"
	  "                     --flamechart, --negate, --countname, ... (all listed below,\n"
	  "                     with their defaults; flamekit-graph(1) describes them);\n"
	  "                     unique prefixes and -title=x work\n"
	  "  INPUT OPTIONS      the input plugin's, e.g. --format perf --pid\n"
	  "  --demangle[=short] demangle C++, Rust and D names as c++filt does; short drops\n"
	  "                     argument lists and Rust hashes (--demangle=no: off, the default)\n"
	  "  FILE...            inputs, merged; '-' or none reads stdin; .gz is read transparently\n" },
	{ "diff", cmd_diff, "diff [-n] [-s] [--format NAME] [-o FILE] BEFORE AFTER",
	  "write two-column differential folded stacks (difffolded.pl)",
	  "  -n, --normalize    scale BEFORE's counts to AFTER's total (truncated, as\n"
	  "                     difffolded.pl -n)\n"
	  "  -s, --strip-hex    rewrite 0x<hex> to 0x... in frame names before comparing\n"
	  "  -f, --format NAME  format of both inputs: folded (default), auto (detected) or\n"
	  "                     an input plugin loaded: @INPUTS@\n"
	  "  -o, --output FILE  write here (atomically) instead of stdout\n" },
	{ "merge", cmd_merge, "merge [-o FILE] FILE...",
	  "sum folded files into one sorted folded file",
	  "  -o, --output FILE  write here (atomically) instead of stdout\n"
	  "  FILE...            folded files (one or two counts a line), .gz or '-';\n"
	  "                     sorted ones are merged as streams, others in memory\n" },
	{ "run", cmd_run, "run [--check] [--set KEY=VALUE]... [JOB.yaml]",
	  "run a YAML job: inputs, filters and outputs",
	  "  --check            validate the job (files, plugins, options, scripts) and stop\n"
	  "  -s, --set KEY=VALUE  override a job value; KEY is a dotted path with list\n"
	  "                     indexes from 0, e.g. outputs.0.options.title=Foo\n"
	  "  JOB.yaml           the job (flamekit-job(5)); none runs conf/example.yaml from the\n"
	  "                     data directory ($FLAMEKIT_DATADIR), writing into the\n"
	  "                     current directory\n" },
	{ "plugins", cmd_plugins, "plugins [--help NAME]",
	  "list the loaded plugins, or one plugin's options",
	  "  --help NAME        print NAME's description and options (KIND:NAME when an\n"
	  "                     input and an output share the name, e.g. output:folded)\n" },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const struct cli_command *find_command(const char *name)
{
	for (const struct cli_command *k = cli_commands; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: flamekit COMMAND [OPTIONS] [ARGS]\n\n"
	           "Turn profiler output into folded stacks and flame graphs.\n\nCommands:\n");
	for (const struct cli_command *k = cli_commands; k->name; k++)
		fprintf(f, "  %-10s %s\n", k->name, k->summary);
	fprintf(f, "\n'flamekit help COMMAND' describes a command; 'flamekit --version' prints the "
	           "version.\nExit status: 0 success, 1 bad input data or I/O error, 2 usage error.\n");
}

/* Where a help text lists the plugins loaded: @INPUTS@, @OUTPUTS@. */
static const struct {
	const char *token;
	int kind;
} help_lists[] = { { "@INPUTS@", FK_PLUGIN_INPUT }, { "@OUTPUTS@", FK_PLUGIN_OUTPUT } };

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of r's plugins of one kind, sorted, ", "-separated, into b. */
static int kind_names(const struct fk_registry *r, int kind, struct fk_buf *b)
{
	const char **v = fk_malloc((r->n + 1) * sizeof *v);
	size_t n = 0;
	int rc = 0;

	if (!v)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < r->n; i++)
		if ((int)r->v[i]->d.h.kind == kind)
			v[n++] = r->v[i]->d.h.name;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_name);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fk_buf_printf(b, "%s%s", i ? ", " : "", v[i]);
	if (n == 0 && rc == 0)
		rc = fk_buf_printf(b, "none (is FLAMEKIT_PLUGIN_PATH right?)");
	fk_free(v);
	return rc;
}

/* One line of help with its token replaced by the list of names, wrapped
 * at 80 columns under the description (column 21). */
static int print_list_line(const char *line, size_t len, const char *token, const char *names)
{
	const char *t = strstr(line, token), *p;
	struct fk_buf b = { 0 };
	size_t col = 0, indent = 21;
	int rc;

	if ((rc = fk_buf_append(&b, line, (size_t)(t - line))) < 0 ||
	    (rc = fk_buf_printf(&b, "%s", names)) < 0 ||
	    (rc = fk_buf_append(&b, t + strlen(token), len - (size_t)(t - line) - strlen(token))) < 0 ||
	    (rc = fk_buf_append(&b, "", 1)) < 0)
		goto out;
	/* the option and the spaces before its description stay as they are */
	p = strstr(b.data + 2, "  ");
	p = p ? p + strspn(p, " ") : b.data;
	col = (size_t)(p - b.data);
	fwrite(b.data, 1, col, stdout);
	for (bool first = true; *p; first = false) {
		size_t w = strcspn(p, " ");
		if (!first && col + 1 + w > 80) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			putchar(' ');
			col++;
		}
		fwrite(p, 1, w, stdout);
		col += w;
		p += w;
		p += strspn(p, " ");
	}
	putchar('\n');
out:
	fk_buf_free(&b);
	return rc;
}

/* A command's help text, each @TOKEN@ line naming the plugins loaded. */
static int print_help(const char *help, const struct fk_registry *r)
{
	int rc = 0;

	for (const char *line = help; *line && rc == 0;) {
		size_t len = strcspn(line, "\n");
		size_t k = 0;
		while (k < sizeof help_lists / sizeof help_lists[0]) {
			const char *t = strstr(line, help_lists[k].token);
			if (t && t < line + len)
				break;
			k++;
		}
		if (k < sizeof help_lists / sizeof help_lists[0]) {
			struct fk_buf names = { 0 };
			if ((rc = kind_names(r, help_lists[k].kind, &names)) == 0)
				rc = print_list_line(line, len, help_lists[k].token, names.data);
			fk_buf_free(&names);
		} else {
			printf("%.*s\n", (int)len, line);
		}
		line += len + (line[len] == '\n');
	}
	return rc;
}

/* The help of command `name`; argv (argc items) are its arguments, whose
 * --plugin-dir directories are loaded with the rest, so the formats listed
 * are those the same command line would take. */
static int help_command(const char *name, int argc, char **argv)
{
	const struct cli_command *k = find_command(name);
	struct cli c;
	int rc = EXIT_OK;

	if (!k)
		return cli_usage_error(NULL, "no command named \"%s\"", name);
	memset(&c, 0, sizeof c);
	if (fk_registry_init(&c.reg) < 0)
		return EXIT_DATA;
	if (cli_plugin_dirs(&c, k->name, argc, argv) < 0 || cli_load(&c) < 0) {
		rc = EXIT_DATA;
		goto out;
	}
	printf("Usage: flamekit %s\n\n%s.\n", k->usage, k->summary);
	if (k->help) {
		printf("\nOptions:\n");
		if (print_help(k->help, &c.reg) < 0) {
			fk_log(FK_LOG_ERROR, "out of memory");
			rc = EXIT_DATA;
			goto out;
		}
	}
	printf("\nCommon options:\n%s", cli_common_help);
	if (strcmp(k->name, "graph") == 0)
		rc = graph_help(&c.reg);
out:
	fk_registry_free(&c.reg);
	return rc;
}

#ifdef FK_FAULT_INJECTION
/*
 * Only in tests/flamekit-faults, the test build of this command:
 * FK_FAIL_ALLOC_AFTER=N lets N engine allocations succeed and fails every
 * later one (plugins allocate through the host, so theirs and Lua's count);
 * FK_COUNT_ALLOCS=1 prints "allocations: N" to stderr at exit, so a test
 * can walk the failure point over a whole run; FK_FAIL_ALLOC_TRACE=1 prints
 * where the first injected failure hits.
 */
static void print_allocs(void) { fprintf(stderr, "allocations: %lu\n", fk_alloc_calls()); }

static void print_backtrace(void)
{
	void *pc[32];
	int n = backtrace(pc, 32);

	fprintf(stderr, "injected allocation failure at:\n");
	backtrace_symbols_fd(pc, n, STDERR_FILENO);
}

static void fault_injection(void)
{
	const char *n = getenv("FK_FAIL_ALLOC_AFTER");

	if (n && *n)
		fk_alloc_fail_after(strtol(n, NULL, 10));
	if (getenv("FK_COUNT_ALLOCS"))
		atexit(print_allocs);
	if (getenv("FK_FAIL_ALLOC_TRACE"))
		fk_alloc_fail_hook = print_backtrace;
}
#endif

/* flamekit's own two options, by any prefix (they share no first letter)
 * after one dash or two, as a command's options. */
static bool top_option(const char *a, const char *name)
{
	bool two = a[0] == '-' && a[1] == '-';
	size_t n;

	if (a[0] != '-')
		return false;
	a += two ? 2 : 1;
	n = strlen(a);
	/* one letter after one dash is a short option, not a prefix */
	return n > 0 && strncmp(name, a, n) == 0 && (n > 1 || two);
}

int main(int argc, char **argv)
{
	const struct cli_command *k;
	struct cli c;
	int rc;

	fk_heap_tune();
	/* A closed stdout pipe ends the run with EPIPE, handled by the writer. */
	signal(SIGPIPE, SIG_IGN);
#ifdef FK_FAULT_INJECTION
	fault_injection();
#endif
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (top_option(argv[1], "help") || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (top_option(argv[1], "version") || strcmp(argv[1], "-V") == 0) {
		printf("flamekit %s (plugin ABI %d.%d)\n", PACKAGE_VERSION, FK_ABI_MAJOR, FK_ABI_MINOR);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		return help_command(argv[2], argc - 2, argv + 2);
	}
	k = find_command(argv[1]);
	if (!k)
		return cli_usage_error(NULL, "unknown command \"%s\"", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
		     strcmp(argv[i], "-help") == 0) && strcmp(argv[1], "plugins") != 0)
			return help_command(argv[1], argc - 1, argv + 1);
	}
	memset(&c, 0, sizeof c);
	c.progress = 1;
	if (fk_registry_init(&c.reg) < 0)
		return EXIT_DATA;
	rc = cli_canon(&c, k->name, argc - 1, argv + 1);
	rc = rc < 0 ? cli_exit(rc) : k->run(&c, argc - 1, argv + 1);
	for (size_t i = 0; i < c.nowned; i++)
		fk_free(c.owned[i]);
	fk_free(c.owned);
	c.reg.keep_loaded = true; /* exit unmaps them */
	fk_registry_free(&c.reg);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_DATA;
	return rc;
}
