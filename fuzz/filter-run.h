/*
 * What the filter harnesses (fuzz/lua.c, fuzz/demangle.c) share: the three
 * built-in plugins registered as the loader would (the folded input and
 * output plugins, and the filter under test, their entry points renamed in
 * fuzz/NAME.sources), and one run of folded stacks through a filter chain
 * as `flamekit run` does it: parse into a sink that runs sample() at push
 * time, the per-frame filter pass, the finished tree, the folded output
 * into /dev/null.  Header-only: each harness is one program.
 */
#ifndef FK_FUZZ_FILTER_RUN_H
#define FK_FUZZ_FILTER_RUN_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fk.h"
#include "run.h"

const struct fk_plugin_header *fk_fuzz_input_init(void);
const struct fk_plugin_header *fk_fuzz_output_init(void);
const struct fk_plugin_header *fk_fuzz_filter_init(void);

static struct fk_registry fuzz_reg;
static const struct fk_plugin *fuzz_input, *fuzz_output, *fuzz_filter;
static void *fuzz_input_opts, *fuzz_output_opts;
static int fuzz_devnull = -1;

/* Register the plugins and find the filter `name`; exits on failure. */
static void fuzz_filter_setup(const char *name)
{
	fuzz_quiet_unless_verbose();
	/* registered as the loader would, with its checks, minus dlopen */
	if (fk_registry_init(&fuzz_reg) < 0 ||
	    fk_registry_add_builtin(&fuzz_reg, fk_fuzz_input_init(), "(built-in input)") < 0 ||
	    fk_registry_add_builtin(&fuzz_reg, fk_fuzz_output_init(), "(built-in output)") < 0 ||
	    fk_registry_add_builtin(&fuzz_reg, fk_fuzz_filter_init(), "(built-in filter)") < 0)
		exit(2);
	fuzz_input = fk_registry_find(&fuzz_reg, FK_PLUGIN_INPUT, "folded");
	fuzz_output = fk_registry_find(&fuzz_reg, FK_PLUGIN_OUTPUT, "folded");
	fuzz_filter = fk_registry_find(&fuzz_reg, FK_PLUGIN_FILTER, name);
	if (!fuzz_input || !fuzz_output || !fuzz_filter) {
		fprintf(stderr, "fuzz: the built-in plugins are not an input, an output and a filter\n");
		exit(2);
	}
	if (fk_options_new(fuzz_input, &fuzz_input_opts) < 0 ||
	    fk_options_new(fuzz_output, &fuzz_output_opts) < 0)
		exit(2);
	fuzz_devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fuzz_devnull < 0)
		exit(2);
}

/* Folded stacks through the chain fc (which the caller frees). */
static void fuzz_filter_run(struct fk_filter_chain *fc, const uint8_t *stacks, size_t n)
{
	const struct fuzz_run r = {
		.input = fuzz_input, .input_opts = fuzz_input_opts,
		.output = fuzz_output, .output_opts = fuzz_output_opts,
		.fc = fc, .threads = 1, .devnull = fuzz_devnull, .name = "fuzz",
	};

	fuzz_run(&r, stacks, n);
}

#endif
