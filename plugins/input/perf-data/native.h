/*
 * perf-data's native reader: a perf.data file decoded in-process (pdfile.c),
 * its threads and maps kept as perf keeps them (machine.c), each sample
 * printed as `perf script` (perf 6.1, default fields) prints it, with
 * symbols from libfksym (plugins/lib/symbolize), and that text parsed by
 * the perf parser's session (plugins/lib/perfscript), so that every option
 * behaves exactly as on `perf script` text.
 */
#ifndef FK_PERF_DATA_NATIVE_H
#define FK_PERF_DATA_NATIVE_H

#include <flamekit/plugin.h>

#include "../../lib/perfscript/perfscript.h"
#include "../common/limit.h"

struct pd_native_cfg {
	const struct fk_perf_opts *perf;
	const char *symfs, *kallsyms;
	struct fk_input_limit limit; /* the bytes COMPRESSED records may decompress to */
	int inline_frames, srcline;  /* --inline, --srcline (symtext.h) */
	int demangle;                /* 0: --no-demangle, names as the files hold them */
};

/* The native reader's answer when the file holds what it does not read:
 * *why says what (a phrase: "sample_type bit REGS_USER (--call-graph
 * dwarf)"), and the caller runs perf script instead. */
#define PD_NATIVE_FALLBACK 1

/* Read the perf.data file `path` (in names it in messages) into sink.
 * 0, a negative status (reported: a forged or truncated file names the
 * byte offset), or PD_NATIVE_FALLBACK with *why set before anything was
 * pushed. */
int pd_native_parse(const struct fk_host *h, struct fk_input *in, const char *path,
                    struct fk_sink *sink, const struct pd_native_cfg *cfg, const char **why);

#endif
