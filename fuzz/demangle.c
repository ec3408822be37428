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
#include <string.h>

#include "filter-run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_filter_setup("demangle");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_filter_chain fc;
	char err[256];
	void *opts;

	if (fk_options_new(fuzz_filter, &opts) < 0)
		return 0;
	if (size > 0 && data[0] == '!') {
		if (fk_option_set(fuzz_filter, opts, "style", "short", err, sizeof err) < 0)
			abort();
		data++;
		size--;
	}
	memset(&fc, 0, sizeof fc);
	if (fk_filter_chain_add(&fc, fuzz_filter, opts, "fuzz.yaml:1:1") < 0) {
		fk_options_free(fuzz_filter, opts);
		fk_filter_chain_free(&fc);
		return 0;
	}
	fuzz_filter_run(&fc, data, size);
	fk_filter_chain_free(&fc);
	return 0;
}
