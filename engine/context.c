/*
 * The context stack of each thread (context.h) and the verbosity: the only
 * state the engine's messages depend on, kept here and nowhere else.
 */
#include <stdio.h>

#include "fk.h"

static _Thread_local struct fk_ctx *current;
static int verbosity = FK_LOG_WARN;

struct fk_ctx *fk_ctx_push(struct fk_ctx *cx)
{
	cx->prev = current;
	if (!cx->up)
		cx->up = current;
	current = cx;
	return cx;
}

void fk_ctx_pop(struct fk_ctx **cx)
{
	current = (*cx)->prev;
}

struct fk_ctx *fk_ctx_current(void) { return current; }

bool fk_ctx_reported(const struct fk_ctx *cx)
{
	return cx && __atomic_load_n(&cx->reported, __ATOMIC_RELAXED);
}

void fk_ctx_mark(struct fk_ctx *cx)
{
	for (; cx; cx = cx->up) {
		__atomic_store_n(&cx->reported, 1, __ATOMIC_RELAXED);
		if (cx->flags & FK_CTX_QUIET)
			break;
	}
}

bool fk_ctx_quiet(const struct fk_ctx *cx)
{
	for (; cx; cx = cx->up)
		if (cx->flags & FK_CTX_QUIET)
			return true;
	return false;
}

void fk_ctx_prefix(const struct fk_ctx *cx, char *buf, size_t n)
{
	buf[0] = '\0';
	for (; cx; cx = cx->up) {
		if (cx->plugin) {
			/* an origin's prefix was cut at 1,199 bytes before: kept so */
			size_t cap = cx->origin && n > 1200 ? 1200 : n;
			snprintf(buf, cap, "%s%s%s", cx->plugin->prefix, cx->origin ? cx->origin : "",
			         cx->origin ? ": " : "");
			return;
		}
		if (cx->flags & FK_CTX_ENGINE)
			return;
	}
}

int fk_log_verbosity(void) { return verbosity; }

void fk_log_set_verbosity(int level) { verbosity = level; }
