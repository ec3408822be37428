/*
 * libFuzzer harness for the demangle filter: random frame names, mangled
 * or not, through `collapse --demangle`'s path.  fuzz/build.sh compiles
 * this file, the engine, the demangle filter and the folded input and
 * output plugins into one program (entry points renamed in
 * fuzz/demangle.sources); libiberty itself is linked as Debian ships it,
 * not instrumented.
 *
 * An input is folded stacks ("a;_Z3foov;b 3"); a first byte '!' selects
 * style=short for the rest.  Each goes through the folded plugin into a
 * sink, the per-frame filter pass (where the filter renames), the finished
 * tree and the folded output into /dev/null.  A crash, a sanitizer report
 * or a leak is a bug.  FK_FUZZ_VERBOSE=1 shows flamekit's messages.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fk.h"

const struct fk_plugin_header *fk_fuzz_input_init(void);
const struct fk_plugin_header *fk_fuzz_output_init(void);
const struct fk_plugin_header *fk_fuzz_filter_init(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fk_registry reg;
static const struct fk_plugin *input, *output, *filter;
static void *input_opts, *output_opts;
static int devnull = -1;

static void quiet(int level, const char *line)
{
	(void)level;
	(void)line;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!getenv("FK_FUZZ_VERBOSE"))
		fk_log_hook = quiet;
	if (fk_registry_init(&reg) < 0 ||
	    fk_registry_add_builtin(&reg, fk_fuzz_input_init(), "(built-in input)") < 0 ||
	    fk_registry_add_builtin(&reg, fk_fuzz_output_init(), "(built-in output)") < 0 ||
	    fk_registry_add_builtin(&reg, fk_fuzz_filter_init(), "(built-in filter)") < 0)
		exit(2);
	input = fk_registry_find(&reg, FK_PLUGIN_INPUT, "folded");
	output = fk_registry_find(&reg, FK_PLUGIN_OUTPUT, "folded");
	filter = fk_registry_find(&reg, FK_PLUGIN_FILTER, "demangle");
	if (!input || !output || !filter) {
		fprintf(stderr, "fuzz: the built-in plugins are not an input, an output and a filter\n");
		exit(2);
	}
	if (fk_options_new(input, &input_opts) < 0 || fk_options_new(output, &output_opts) < 0)
		exit(2);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return devnull < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_filter_chain fc;
	struct fk_profile *p;
	struct fk_input in;
	struct fk_sink sink;
	struct fk_writer w;
	char err[256];
	void *opts;
	int rc;

	if (fk_options_new(filter, &opts) < 0)
		return 0;
	if (size > 0 && data[0] == '!') {
		if (fk_option_set(filter, opts, "style", "short", err, sizeof err) < 0)
			abort();
		data++;
		size--;
	}
	memset(&fc, 0, sizeof fc);
	if (fk_filter_chain_add(&fc, filter, opts, "fuzz.yaml:1:1") < 0) {
		fk_options_free(filter, opts);
		return 0;
	}
	p = fk_profile_new();
	if (!p)
		goto out;
	if (fk_input_open_mem(&in, "fuzz", data, size) < 0) {
		fk_profile_free(p);
		goto out;
	}
	fk_sink_init(&sink, p, 0, 1, &fc);
	rc = input->d.in.parse(&fk_host, &in, &sink, input_opts);
	fk_sink_fini(&sink);
	if (rc == 0 && in.error)
		rc = in.error;
	fk_input_close(&in);
	if (rc == 0)
		rc = fk_profile_apply_frame_filters(&p, &fc);
	if (rc == 0)
		rc = fk_profile_finish(p);
	if (rc == 0 && fk_writer_open(&w, NULL) == 0) {
		w.fd = devnull;
		rc = output->d.out.render(&fk_host, p, &w, output_opts);
		if (rc == 0)
			fk_writer_commit(&w);
		else
			fk_writer_abort(&w);
	}
	fk_profile_free(p);
out:
	fk_filter_chain_free(&fc);
	return 0;
}
