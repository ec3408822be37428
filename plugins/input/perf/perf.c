/*
 * Input plugin "perf": the text `perf script` prints, folded the way
 * FlameGraph's stackcollapse-perf.pl (HEAD, 41fee1f) folds it, minus its
 * bugs, with --offcpu for sched_switch records.  The parser is a library
 * (plugins/lib/perfscript/) that perf-data links too; this is only the
 * plugin's descriptor.
 *
 * A record is a header line, its frame lines (leaf first) and a blank line:
 *
 *   java 24636/25607 [000] 4794564.109216:   1001001 cpu-clock:ppp:
 *           7f7b3c2a1b2c Interpreter+0x2c (/tmp/perf-24636.map)
 *       ffffffff8103ce3b native_safe_halt ([kernel.kallsyms])
 */
#include "../../lib/perfscript/perfscript.h"
#include "probe.h"

/* The rows name members of a struct holding the options as a member. */
struct fk_perf_opts_row {
	struct fk_perf_opts o;
};

static const struct fk_option options[] = {
	FK_PERF_OPTION_ROWS(struct fk_perf_opts_row, o),
	FK_OPTION_END,
};

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *opts)
{
	static const struct fk_perf_opts defaults = { 0 };
	return fk_perf_parse(h, in, sink, opts ? opts : &defaults);
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "perf",
		.version = "1.0",
		.description = "perf script text (stackcollapse-perf.pl), with --offcpu for sched_switch",
		.options = options,
		.options_size = sizeof(struct fk_perf_opts),
	},
	.probe = fk_perf_probe,
	.sync = fk_perf_sync,
	.parse = parse,
	.check = fk_perf_check,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
