/* Shared helpers for the cmocka tests. */
#ifndef FK_TESTLIB_H
#define FK_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fk.h"

/* Log lines captured by the hook, one per line. */
static struct fk_buf captured;

static void capture_hook(int level, const char *line)
{
	(void)level;
	fk_buf_append(&captured, line, strlen(line));
	fk_buf_append(&captured, "\n", 1);
}

static inline void capture_start(void)
{
	fk_buf_free(&captured);
	fk_log_hook = capture_hook;
}

static inline const char *capture_text(void)
{
	return captured.data ? captured.data : "";
}

/* Make pl, a descriptor built by a test, look as the loader leaves one:
 * zeroed, of kind `kind`, its struct_size the whole descriptor's, so that
 * the engine's version guard (engine/calls.c) sees the members the test
 * sets. */
static inline void test_descriptor(struct fk_plugin *pl, int kind, const char *name)
{
	memset(&pl->d, 0, sizeof pl->d);
	pl->d.h.kind = (uint32_t)kind;
	pl->d.h.name = name;
	pl->d.h.struct_size = kind == FK_PLUGIN_INPUT ? sizeof(struct fk_input_plugin)
	                      : kind == FK_PLUGIN_FILTER ? sizeof(struct fk_filter_plugin)
	                                                 : sizeof(struct fk_output_plugin);
}

static inline void capture_stop(void)
{
	fk_log_hook = NULL;
	fk_buf_free(&captured);
}

#endif
