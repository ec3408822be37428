/*
 * libFuzzer harness for one input plugin.  fuzz/build.sh compiles the
 * engine, this file and the plugin's sources into one binary per plugin,
 * all with -fsanitize=fuzzer,address,undefined; the plugin's entry point is
 * renamed to fk_fuzz_input_init (and the folded output plugin's to
 * fk_fuzz_output_init) so both fit in one program without dlopen, and the
 * sanitizers see the plugin's code too.
 *
 * Each input goes through what `flamekit collapse --format NAME` does: the
 * plugin's probe on the first 64 KiB, its parse on an in-memory input, the
 * tree finish, and the folded output written to /dev/null.  Errors the
 * plugin reports are fine (bad input is expected); a crash, a sanitizer
 * report, a leak or a hang is a bug.
 *
 * FK_FUZZ_OPTS="name=value,flag" sets plugin options (as --name=value would),
 * to fuzz paths that only an option turns on.  FK_FUZZ_THREADS=N (default
 * 1) gives the sink N threads, so plugins that parse in parallel through
 * host->parse_chunks run their chunked path; FLAMEKIT_CHUNK_BYTES=N makes
 * the chunks small enough for fuzz-sized inputs to be cut.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fk.h"
#include "run.h"

const struct fk_plugin_header *fk_fuzz_input_init(void);
const struct fk_plugin_header *fk_fuzz_output_init(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* libtraceevent 1.7 leaks a token of a malformed event format inside
 * tep_parse_event (a few bytes per format, the library's to mend; the
 * perf-data-header harness says the same): not a leak of ours.  Only the
 * perf-data plugin links the library. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static struct fk_plugin input, output;
static void *input_opts, *output_opts;
static int devnull = -1;
static unsigned threads = 1;

/* What the loader does with a module's descriptor, minus dlopen. */
static void adopt(struct fk_plugin *pl, const struct fk_plugin_header *hd, size_t ours)
{
	size_t copy = hd->struct_size < ours ? hd->struct_size : ours;

	memset(pl, 0, sizeof *pl);
	memcpy(&pl->d, hd, copy);
	pl->path = (char *)"(built in)";
	pl->prefix = (char *)"";
}

static void set_options(const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char err[512], *eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		if (fk_option_set(&input, input_opts, tok, eq, err, sizeof err) < 0) {
			fprintf(stderr, "FK_FUZZ_OPTS: %s\n", err);
			exit(2);
		}
	}
	free(copy);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *opts = getenv("FK_FUZZ_OPTS");

	(void)argc;
	(void)argv;
	fuzz_quiet_unless_verbose();
	adopt(&input, fk_fuzz_input_init(), sizeof(struct fk_input_plugin));
	adopt(&output, fk_fuzz_output_init(), sizeof(struct fk_output_plugin));
	if (input.d.h.kind != FK_PLUGIN_INPUT || !input.d.in.parse ||
	    output.d.h.kind != FK_PLUGIN_OUTPUT || !output.d.out.render) {
		fprintf(stderr, "fuzz: the built-in plugins are not an input and an output\n");
		exit(2);
	}
	if (fk_options_new(&input, &input_opts) < 0 || fk_options_new(&output, &output_opts) < 0)
		exit(2);
	if (opts)
		set_options(opts);
	if (getenv("FK_FUZZ_THREADS"))
		threads = (unsigned)strtoul(getenv("FK_FUZZ_THREADS"), NULL, 10);
	if (threads < 1)
		threads = 1;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return devnull < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the data as standard input, the one name no plugin opens: one that
	 * reads its input by name (perf-data, `perf script -i NAME`) reads the
	 * stream instead (perf-data: a perf record -o - capture, natively) or
	 * refuses it, whatever the current directory holds, and runs nothing */
	const struct fuzz_run r = {
		.input = &input, .input_opts = input_opts,
		.output = &output, .output_opts = output_opts,
		.threads = threads, .devnull = devnull, .name = "<stdin>",
	};

	if (input.d.in.probe)
		(void)input.d.in.probe(data, size < 65536 ? size : 65536);
	fuzz_run(&r, data, size);
	return 0;
}
