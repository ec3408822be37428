/*
 * libFuzzer harness for the lua filter: random scripts over random
 * samples.  fuzz/build.sh compiles this file, the engine, the lua filter
 * plugin and the folded input and output plugins into one program (entry
 * points renamed in fuzz/lua.sources), all under ASan and UBSan.
 *
 * An input is a script, then a line that is exactly "--samples", then
 * folded stacks ("a;b;c 3"):
 *
 *     --args {func = "fib"}
 *     function frame(f) if f.name == "x" then return false end end
 *     --samples
 *     main;x;fib 3
 *
 * Without the "--samples" line the whole input is the script and the
 * stacks are a small built-in set.  A first line "--args TABLE" (a Lua
 * comment, so the script stays valid Lua) gives the filter's args option.
 *
 * Each input goes through what `flamekit run` does with a job of one
 * folded input, one lua filter and one folded output: the filter instance
 * is created from the script (written to a file this program owns, since
 * the plugin takes a path), the folded plugin parses the stacks into a
 * sink that runs sample() at push time, the per-frame filter pass runs
 * frame(), the tree is finished and the folded output is written to
 * /dev/null.  The limits are small so that execs stay fast:
 * instruction-limit 100000, memory-limit 1M, time-limit 1 (CPU seconds).
 *
 * Script errors and limit errors are expected; a crash, a sanitizer
 * report, a leak, a hang or a handle reaching engine memory after its call
 * are bugs.  FK_FUZZ_VERBOSE=1 shows flamekit's messages (to see which
 * error a script hit when replaying one input).
 */
#include <string.h>

#include "filter-run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEPARATOR "--samples"
#define ARGS_PREFIX "--args "

static const char default_stacks[] =
	"main;parse;lex 3\n"
	"main;render;fib;fib;add 2\n"
	"swapper;do_idle;intel_idle_[k] 1\n"
	"main;0x7f3a2b1c;memcpy 1\n";

static char dir[64], script_path[96];

static void cleanup(void)
{
	unlink(script_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_filter_setup("lua");
	/* One directory per process: parallel jobs (-jobs=N) never share it. */
	snprintf(dir, sizeof dir, "/tmp/fuzz-lua-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("fuzz: mkdtemp");
		exit(2);
	}
	snprintf(script_path, sizeof script_path, "%s/script.lua", dir);
	atexit(cleanup);
	return 0;
}

/* Find the line that is exactly "--samples" (CRLF allowed); *script_len is
 * the script's length, *samples the start of the stacks or NULL. */
static void split(const uint8_t *data, size_t size, size_t *script_len, const uint8_t **samples)
{
	const size_t sl = sizeof SEPARATOR - 1;

	*script_len = size;
	*samples = NULL;
	for (size_t i = 0; i + sl <= size;) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - data) : size;
		size_t len = end - i;
		if (len && data[end - 1] == '\r')
			len--;
		if (len == sl && memcmp(data + i, SEPARATOR, sl) == 0) {
			*script_len = i;
			*samples = nl ? nl + 1 : data + size;
			return;
		}
		if (!nl)
			break;
		i = end + 1;
	}
}

static int write_script(const uint8_t *data, size_t len)
{
	FILE *f = fopen(script_path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The filter's options: the script, the small limits and, from a first
 * line "--args TABLE", args.  Returns NULL when an option is refused. */
static void *filter_options(const uint8_t *data, size_t len)
{
	const size_t al = sizeof ARGS_PREFIX - 1;
	char err[512], *args = NULL;
	void *opts;

	if (fk_options_new(fuzz_filter, &opts) < 0)
		return NULL;
	if (len > al && memcmp(data, ARGS_PREFIX, al) == 0) {
		const uint8_t *nl = memchr(data, '\n', len);
		size_t n = (nl ? (size_t)(nl - data) : len) - al;
		args = strndup((const char *)data + al, n);
	}
	if (fk_option_set(fuzz_filter, opts, "script", script_path, err, sizeof err) < 0 ||
	    fk_option_set(fuzz_filter, opts, "memory-limit", "1M", err, sizeof err) < 0 ||
	    fk_option_set(fuzz_filter, opts, "instruction-limit", "100000", err, sizeof err) < 0 ||
	    fk_option_set(fuzz_filter, opts, "time-limit", "1", err, sizeof err) < 0 ||
	    (args && fk_option_set(fuzz_filter, opts, "args", args, err, sizeof err) < 0)) {
		fk_options_free(fuzz_filter, opts);
		opts = NULL;
	}
	free(args);
	return opts;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_filter_chain fc;
	const uint8_t *stacks;
	size_t script_len, nstacks;
	void *opts;

	split(data, size, &script_len, &stacks);
	if (stacks)
		nstacks = size - (size_t)(stacks - data);
	else {
		stacks = (const uint8_t *)default_stacks;
		nstacks = sizeof default_stacks - 1;
	}
	if (write_script(data, script_len) < 0) {
		perror("fuzz: writing the script");
		abort();
	}
	opts = filter_options(data, script_len);
	if (!opts)
		return 0;
	memset(&fc, 0, sizeof fc);
	/* the chain owns opts from here on, even when create fails */
	if (fk_filter_chain_add(&fc, fuzz_filter, opts, "fuzz.yaml:1:1") < 0) {
		if (fc.n == 0)
			fk_options_free(fuzz_filter, opts);
		fk_filter_chain_free(&fc);
		return 0;
	}
	fuzz_filter_run(&fc, stacks, nstacks);
	fk_filter_chain_free(&fc);
	return 0;
}
