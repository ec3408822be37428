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

/* The commands; their options are the table's (cli/options.c). */
const struct cli_command cli_commands[] = {
	{ "collapse", cmd_collapse, "collapse [--format NAME] [PLUGIN OPTIONS] [-o FILE] [FILE...]",
	  "read profiler output, write folded stacks" },
	{ "graph", cmd_graph, "graph [OPTIONS] [FILE...]",
	  "draw an SVG flame graph (flamegraph.pl's options)" },
	{ "diff", cmd_diff, "diff [-n] [-s] [--format NAME] [-o FILE] BEFORE AFTER",
	  "write two-column differential folded stacks (difffolded.pl)" },
	{ "merge", cmd_merge, "merge [-o FILE] FILE...", "sum folded files into one sorted folded file" },
	{ "run", cmd_run, "run [--check] [--set KEY=VALUE]... [JOB.yaml]",
	  "run a YAML job: inputs, filters and outputs" },
	{ "plugins", cmd_plugins, "plugins [--help NAME | --probe FILE...]",
	  "list the loaded plugins, one plugin's options, or what their probes make of files" },
	{ "completion", cmd_completion, "completion bash|zsh",
	  "print the shell completion script of flamekit's options" },
	{ NULL, NULL, NULL, NULL },
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
	if (cli_help_options(k->name, &c.reg) < 0) {
		rc = EXIT_DATA;
		goto out;
	}
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
	for (size_t i = 0; i < c.nnames; i++)
		fk_free((void *)c.names[i]);
	fk_free(c.names);
	c.reg.keep_loaded = true; /* exit unmaps them */
	fk_registry_free(&c.reg);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_DATA;
	return rc;
}
